#include "ui/bucket_props_dialog.h"

#include "core/rest_client.h"
#include "models/bucket_model.h"
#include "models/protection_state.h"
#include "ui/theme.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace tessera::console {

namespace {

QColor errorColor(const QWidget* w)
{
    return isDarkPalette(w->palette()) ? QColor(0xef, 0x9a, 0x9a) : QColor(0xc6, 0x28, 0x28);
}

QString copiesWords(const api::MirrorConf& m)
{
    if (m.mountpathCopies() > 1) return QObject::tr("%1 copies on the mountpaths of each target").arg(m.copies);
    return m.targetCopies() > 1 ? QObject::tr("%1 copies across targets").arg(m.targetCopies())
                                : QObject::tr("mirroring off");
}

}  // namespace

BucketPropsDialog::BucketPropsDialog(RestClient* rest, BucketModel* buckets, const QString& bucket, QWidget* parent)
    : QDialog(parent), m_rest(rest), m_buckets(buckets), m_bucket(bucket), m_props(buckets->props(bucket)),
      m_targets(buckets->targetCount())
{
    setWindowTitle(tr("Bucket properties — %1").arg(bucket));
    setObjectName(QStringLiteral("bucketPropsDialog"));

    m_header = new QLabel;
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);

    m_group = new QGroupBox(tr("Protection"));
    m_group->setObjectName(QStringLiteral("protectionGroup"));
    m_mirror = new QCheckBox(tr("Mirror: keep copies of every object on other targets"));
    m_mirror->setObjectName(QStringLiteral("mirrorEnabled"));
    m_copies = new QSpinBox;
    m_copies->setObjectName(QStringLiteral("mirrorCopies"));
    m_copies->setMinimum(2);
    m_copies->setToolTip(tr("How many targets hold each object, the object itself included (2 to the number of "
                            "targets in the cluster map: %1)")
                             .arg(m_targets));
    auto* copiesHint = new QLabel(tr("targets hold each object (itself included)"));
    m_across = new QCheckBox(tr("Across targets (always: each copy on a different target)"));
    m_across->setObjectName(QStringLiteral("mirrorAcrossTargets"));
    m_across->setChecked(true);
    m_across->setEnabled(false);
    m_across->setToolTip(
        tr("Each copy is on a different target, so that a whole target can fail (or be killed) "
           "and its objects are still read from another. Copies on the mountpaths of one target "
           "(a failed disk, not a dead target) are set with the CLI or the API: "
           "mirror.across_targets false."));
    m_copiesError = new QLabel;
    m_copiesError->setObjectName(QStringLiteral("copiesError"));
    m_copiesError->setWordWrap(true);
    m_copiesError->setVisible(false);
    auto* note =
        new QLabel(tr("Changing the number of copies starts a reprotect job that makes the new copies (or "
                      "drops the extra ones); until it ends the bucket is at risk. With N copies, an "
                      "object stays readable while N−1 of the targets holding it are away."));
    note->setWordWrap(true);
    m_state = new QLabel;
    m_state->setObjectName(QStringLiteral("protectionState"));
    m_state->setTextFormat(Qt::RichText);
    m_state->setWordWrap(true);

    auto* grid = new QGridLayout(m_group);
    grid->addWidget(m_mirror, 0, 0, 1, 3);
    grid->addWidget(new QLabel(tr("Copies:")), 1, 0);
    grid->addWidget(m_copies, 1, 1);
    grid->addWidget(copiesHint, 1, 2);
    grid->addWidget(m_copiesError, 2, 1, 1, 2);
    grid->addWidget(m_across, 3, 0, 1, 3);
    grid->addWidget(note, 4, 0, 1, 3);
    grid->addWidget(m_state, 5, 0, 1, 3);
    grid->setColumnStretch(2, 1);

    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("propsStatus"));
    m_status->setWordWrap(true);
    m_status->setVisible(false);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Apply | QDialogButtonBox::Close);
    m_apply = buttons->button(QDialogButtonBox::Apply);
    connect(m_apply, &QPushButton::clicked, this, &BucketPropsDialog::apply);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_header);
    layout->addWidget(m_group);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    setMinimumWidth(520);

    connect(m_mirror, &QCheckBox::toggled, this, [this] {
        setCopiesError({});
        updateState();
    });
    connect(m_copies, &QSpinBox::valueChanged, this, [this] {
        setCopiesError({});
        updateState();
    });
    if (m_buckets) {
        connect(m_buckets, &BucketModel::dataChanged, this, &BucketPropsDialog::updateState);
        connect(m_buckets, &BucketModel::propsRefreshed, this, [this] {
            if (m_applying || !m_buckets) return;
            const auto now = m_buckets->props(m_bucket);
            if (!now) return;  // destroyed, or not read: what the dialog has stays
            // Changed elsewhere: the form follows unless the user has edited it.
            const bool edited = m_props && wanted().targetCopies() != m_props->mirror.targetCopies();
            m_props = now;
            if (!edited) updateForm();
            updateState();
        });
    }
    updateForm();
}

api::MirrorConf BucketPropsDialog::wanted() const
{
    api::MirrorConf m;
    if (m_mirror->isChecked()) {
        m.enabled = true;
        m.copies = m_copies->value();
        m.acrossTargets = true;
    }
    return m;
}

QString BucketPropsDialog::copiesError() const
{
    return m_copiesError->isVisible() ? m_copiesError->text() : QString();
}

QString BucketPropsDialog::statusText() const { return m_status->text(); }

void BucketPropsDialog::updateForm()
{
    if (!m_props) {
        m_header->setText(tr("<b>%1</b>").arg(m_bucket.toHtmlEscaped()));
        m_group->setEnabled(false);
        setStatus(tr("The bucket's properties have not been read yet."), true);
        updateState();
        return;
    }
    const api::MirrorConf& m = m_props->mirror;
    m_header->setText(tr("<b>%1</b> · created %2 · checksum %3")
                          .arg(m_bucket.toHtmlEscaped(),
                               QDateTime::fromMSecsSinceEpoch(m_props->created / 1'000'000)
                                   .toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                               QString::fromStdString(m_props->checksum.type).toHtmlEscaped()));
    m_group->setEnabled(true);
    const int current = static_cast<int>(m.targetCopies());
    // A map the console has not caught up with yet may list fewer targets
    // than the bucket already uses: the current value stays choosable.
    m_copies->setMaximum(std::max({2, m_targets, current}));
    const QSignalBlocker blockMirror(m_mirror);
    const QSignalBlocker blockCopies(m_copies);
    m_mirror->setChecked(current > 1);
    m_copies->setValue(current > 1 ? current : 2);
    const bool possible = m_targets >= 2 || current > 1;
    m_mirror->setEnabled(possible);
    m_mirror->setToolTip(possible ? QString()
                                  : tr("Mirroring needs at least 2 targets; the cluster map lists %1.").arg(m_targets));
    updateState();
}

void BucketPropsDialog::updateState()
{
    m_copies->setEnabled(m_mirror->isChecked() && m_group->isEnabled());
    const bool changed = m_props && wanted().targetCopies() != m_props->mirror.targetCopies();
    m_apply->setEnabled(changed && !m_applying);
    if (!m_buckets) return;
    const int row = m_buckets->rowOf(m_bucket);
    if (row < 0) {
        m_state->setText(tr("Now: the bucket is not in the list (destroyed?)"));
        return;
    }
    // The state as the bucket list shows it, in its colour, and what it means.
    const QModelIndex cell = m_buckets->index(row, BucketModel::ProtectionColumn);
    const QVariant brush = cell.data(Qt::ForegroundRole);
    const QString state = cell.data().toString().toHtmlEscaped();
    m_state->setText(tr("Now: %1").arg(brush.isValid() ? QStringLiteral("<b style='color:%1'>%2</b>")
                                                             .arg(brush.value<QBrush>().color().name(), state)
                                                       : QStringLiteral("<b>%1</b>").arg(state)) +
                     QStringLiteral("<br>") + cell.data(Qt::ToolTipRole).toString().toHtmlEscaped());
}

void BucketPropsDialog::setCopiesError(const QString& message)
{
    m_copiesError->setText(message);
    m_copiesError->setVisible(!message.isEmpty());
    m_copiesError->setStyleSheet(QStringLiteral("color: %1;").arg(errorColor(this).name()));
    m_copies->setProperty("invalid", !message.isEmpty());
    m_copies->setStyleSheet(message.isEmpty()
                                ? QString()
                                : QStringLiteral("QSpinBox { border: 1px solid %1; }").arg(errorColor(this).name()));
}

void BucketPropsDialog::setStatus(const QString& text, bool error)
{
    m_status->setText(text);
    m_status->setVisible(!text.isEmpty());
    m_status->setStyleSheet(error ? QStringLiteral("color: %1;").arg(errorColor(this).name()) : QString());
}

void BucketPropsDialog::apply()
{
    if (!m_props || m_applying) return;
    const api::MirrorConf before = m_props->mirror;
    const api::MirrorConf conf = wanted();
    setCopiesError({});
    setStatus(tr("Applying…"), false);
    m_applying = true;
    updateState();
    m_rest->setMirror(m_bucket, conf, this, [this, before](api::Result<api::BucketProps> props) {
        m_applying = false;
        if (!props) {
            const QString message = QString::fromStdString(props.error().message);
            // The cluster names the field it refuses ("mirror.copies is 4 but …").
            if (message.contains(QLatin1String("mirror.copies"))) {
                setCopiesError(message);
                setStatus(tr("Not applied."), true);
            } else {
                setStatus(tr("Not applied: %1").arg(message), true);
            }
            updateState();
            return;
        }
        m_props = *props;
        if (m_buckets) m_buckets->applyProps(m_bucket, *props);
        const api::MirrorConf& now = props->mirror;
        QString text = tr("Saved: %1.").arg(copiesWords(now));
        if (now.targetCopies() > before.targetCopies()) {
            text += QLatin1Char(' ') + tr("A reprotect job makes the new copies; the bucket is at risk until it ends.");
        } else if (now.targetCopies() < before.targetCopies()) {
            text += QLatin1Char(' ') + tr("A reprotect job drops the copies no longer asked for.");
        }
        setStatus(text, false);
        updateForm();
        emit applied(m_bucket, *props);
    });
}

}  // namespace tessera::console
