#include "models/job_model.h"

#include "models/format_util.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QStringList>
#include <QTimer>
#include <algorithm>

namespace tessera::console {

JobModel::JobModel(QObject* parent, std::function<std::int64_t()> nowNs)
    : QAbstractTableModel(parent), m_nowNs(std::move(nowNs)), m_timer(new QTimer(this))
{
    if (!m_nowNs) {
        m_nowNs = [] { return QDateTime::currentMSecsSinceEpoch() * 1'000'000; };
    }
    m_timer->setInterval(1000);
    connect(m_timer, &QTimer::timeout, this, &JobModel::tick);
    m_timer->start();
}

int JobModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_jobs.size());
}

int JobModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

int JobModel::rowOf(const QString& id) const
{
    const std::string key = id.toStdString();
    for (std::size_t i = 0; i < m_jobs.size(); ++i) {
        if (m_jobs[i].id == key) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

int JobModel::progressPercent(const api::JobStatus& job) const
{
    const auto& p = job.progress;
    if (p.bytesTotal > 0) {
        return static_cast<int>(
            std::min<std::uint64_t>(100, p.bytesDone * 100 / static_cast<std::uint64_t>(p.bytesTotal)));
    }
    if (p.objectsTotal > 0) {
        return static_cast<int>(
            std::min<std::uint64_t>(100, p.objectsDone * 100 / static_cast<std::uint64_t>(p.objectsTotal)));
    }
    if (job.state == api::JobState::Finished) {
        return 100;
    }
    if (p.objectsTotal == 0 && p.bytesTotal <= 0) {
        return job.state == api::JobState::Running ? -1 : 100;
    }
    return -1;
}

QVariant JobModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const api::JobStatus& j = m_jobs[static_cast<std::size_t>(index.row())];
    if (role == ProgressRole) {
        return progressPercent(j);
    }
    if (role == JobIdRole) {
        return QString::fromStdString(j.id);
    }
    if (role == RunningRole) {
        return j.state == api::JobState::Running;
    }
    if (role == Qt::ForegroundRole && index.column() == StateColumn) {
        if (j.state == api::JobState::Failed) {
            return QBrush(QColor(0xc6, 0x28, 0x28));
        }
        if (j.state == api::JobState::Aborted) {
            return QBrush(QColor(0xe0, 0x8a, 0x00));
        }
        return {};
    }
    if (role == Qt::ToolTipRole && index.column() == ErrorColumn) {
        return QString::fromStdString(j.error);
    }
    if (role == Qt::ToolTipRole && index.column() == ProgressColumn) {
        return data(index, Qt::DisplayRole);  // a narrow column may cut it
    }
    if (role == Qt::ToolTipRole && index.column() == CountersColumn) {
        QStringList lines;
        for (const auto& [id, t] : j.targets) {
            const QString text = countersText(j.kind, t.progress.counters);
            if (!text.isEmpty()) {
                lines << QStringLiteral("%1: %2").arg(QString::fromStdString(id), text);
            }
        }
        return lines.join(QLatin1Char('\n'));
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (index.column()) {
    case IdColumn: return QString::fromStdString(j.id);
    case KindColumn: return QString::fromStdString(j.kind);
    case StateColumn: {
        QString s = QString::fromUtf8(api::jobStateName(j.state).data(),
                                      static_cast<qsizetype>(api::jobStateName(j.state).size()));
        if (j.abortRequested && j.state == api::JobState::Running) {
            s += tr(" (aborting)");
        }
        return s;
    }
    case PhaseColumn: return QString::fromStdString(j.phase);
    case ProgressColumn: {
        const auto& p = j.progress;
        QString objects = p.objectsTotal >= 0 ? tr("%1/%2 objects").arg(p.objectsDone).arg(p.objectsTotal)
                                              : tr("%1 objects").arg(p.objectsDone);
        if (p.bytesTotal > 0 || p.bytesDone > 0) {
            objects += QStringLiteral(", ") + formatBytes(static_cast<qint64>(p.bytesDone));
            if (p.bytesTotal >= 0) {
                objects += QStringLiteral("/") + formatBytes(p.bytesTotal);
            }
        }
        if (p.errors > 0) {
            objects += tr(", %1 errors").arg(p.errors);
        }
        return objects;
    }
    case CountersColumn: return countersText(j.kind, j.progress.counters);
    case ElapsedColumn: {
        if (j.startNs <= 0) {
            return QString();
        }
        const std::int64_t end = j.endNs > 0 ? j.endNs : m_nowNs();
        return formatDuration(static_cast<double>(std::max<std::int64_t>(0, end - j.startNs)) / 1e9);
    }
    case ErrorColumn: return QString::fromStdString(j.error);
    default: return {};
    }
}

QVariant JobModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
    case IdColumn: return tr("Job");
    case KindColumn: return tr("Kind");
    case StateColumn: return tr("State");
    case PhaseColumn: return tr("Phase");
    case ProgressColumn: return tr("Progress");
    case CountersColumn: return tr("Counters");
    case ElapsedColumn: return tr("Elapsed");
    case ErrorColumn: return tr("Error");
    default: return {};
    }
}

void JobModel::updateJob(const api::JobStatus& job)
{
    const int existing = rowOf(QString::fromStdString(job.id));
    if (existing >= 0) {
        api::JobStatus& row = m_jobs[static_cast<std::size_t>(existing)];
        const bool ended = row.state == api::JobState::Running && api::isFinal(job.state);
        row = job;
        emit dataChanged(index(existing, 0), index(existing, ColumnCount - 1));
        if (ended) {
            emit jobEnded(job);
        }
        return;
    }
    // Newest start first; ties by id so the order is stable.
    const auto pos = std::find_if(m_jobs.begin(), m_jobs.end(), [&](const api::JobStatus& j) {
        return j.startNs < job.startNs || (j.startNs == job.startNs && j.id > job.id);
    });
    const int at = static_cast<int>(pos - m_jobs.begin());
    beginInsertRows({}, at, at);
    m_jobs.insert(pos, job);
    endInsertRows();
    if (m_jobs.size() > static_cast<std::size_t>(kMaxJobs)) {
        // Drop the oldest ended job.
        for (int r = static_cast<int>(m_jobs.size()) - 1; r >= 0; --r) {
            if (api::isFinal(m_jobs[static_cast<std::size_t>(r)].state)) {
                beginRemoveRows({}, r, r);
                m_jobs.erase(m_jobs.begin() + r);
                endRemoveRows();
                break;
            }
        }
    }
}

QString JobModel::countersText(const std::string& kind, const std::map<std::string, std::uint64_t>& counters)
{
    // The kinds' own counters, as docs/api.md lists them.
    static const std::map<std::string, std::vector<std::string>> kKnown = {
        {"scrub", {"checked", "corrupt", "repaired", "unrepairable"}},
        {"reprotect", {"copies_sent"}},
    };
    QStringList parts;
    auto add = [&parts](const std::string& name, std::uint64_t count) {
        parts << QStringLiteral("%1 %2")
                     .arg(QString::fromStdString(name).replace(QLatin1Char('_'), QLatin1Char(' ')))
                     .arg(count);
    };
    std::vector<std::string> known;
    if (const auto it = kKnown.find(kind); it != kKnown.end()) {
        known = it->second;
    }
    for (const std::string& name : known) {
        const auto c = counters.find(name);
        add(name, c == counters.end() ? 0 : c->second);
    }
    for (const auto& [name, count] : counters) {
        if (std::find(known.begin(), known.end(), name) == known.end()) {
            add(name, count);
        }
    }
    return parts.join(QStringLiteral(" · "));
}

void JobModel::setJobs(const std::vector<api::JobStatus>& jobs)
{
    for (const auto& j : jobs) {
        updateJob(j);
    }
}

void JobModel::clear()
{
    beginResetModel();
    m_jobs.clear();
    endResetModel();
}

void JobModel::tick()
{
    for (std::size_t i = 0; i < m_jobs.size(); ++i) {
        if (m_jobs[i].state == api::JobState::Running) {
            const int r = static_cast<int>(i);
            emit dataChanged(index(r, ElapsedColumn), index(r, ElapsedColumn), {Qt::DisplayRole});
        }
    }
}

}  // namespace tessera::console
