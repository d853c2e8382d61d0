#pragma once
// The dSort composer (docs/console.md): the shared composer page
// (SpecComposerPage: form and text in step, errors on fields and lines,
// saved specs, draft, undo, the live job view) with dSort's form: the input
// template's expansion as it is typed and which of its shards exist, the
// algorithm's own fields. Preview asks the proxy for the plan
// (POST /v1/sort?dry_run=true) and shows it: the input shards found and
// missing, every output shard with its owner target, size and records, the
// first records in output order, the warnings. Start submits the previewed
// spec when the document has not changed since (so a shuffle's seed chosen
// by the proxy gives exactly the plan shown), else the text.

#include "spec/dsort_preview.h"
#include "ui/spec_composer_page.h"

#include <QStringList>
#include <memory>
#include <nlohmann/json.hpp>

namespace tessera::console {

class DsortPage : public SpecComposerPage {
    Q_OBJECT
public:
    static constexpr int kPresenceDelayMs = 400;      // after the last edit of the input fields
    static constexpr int kMaxPresenceNames = 100000;  // names listed to tell which inputs exist
    static constexpr int kMaxListedNames = 3;         // missing names shown

    // `specs` may be null (no database): nothing is saved.
    DsortPage(RestClient* rest, SpecStore* specs, QWidget* parent = nullptr);

    QLabel* inputExpansion() const { return m_expansion; }
    QStandardItemModel* shardsModel() const { return m_outputModel; }
    QStandardItemModel* recordsModel() const { return m_firstModel; }
    std::optional<spec::DsortDryRun> lastPlan() const { return m_plan; }

    // The input shards the spec names (template expanded, extension
    // appended), at most `max`; `total` counts them all; `error` says why
    // there are none.
    QStringList inputNames(int max, qint64* total, QString* error) const;
    // "23 shards: shard-000000.tar … shard-000022.tar" (or the error).
    QString inputSummary() const;

public slots:
    void refresh() override;
    void runPreview() override;

protected:
    QString emptySpec() const override;
    void documentChanged() override;
    void submit(const QByteArray& body, bool yaml, std::function<void(api::Result<QString>)> done) override;
    QByteArray startBody(bool* yaml, QString* outputBucket) const override;

private:
    void buildForm();
    void checkPresence();
    void listForPresence(const QString& bucket, const QStringList& names, const QString& token, int listed,
                         std::shared_ptr<std::vector<QString>> seen);
    void showPlan(const spec::DsortDryRun& plan);

    QLabel* m_expansion = nullptr;
    QTimer* m_presenceTimer;
    RestCall m_presenceCall;
    int m_presenceGeneration = 0;
    QString m_presenceKey;  // bucket and names last checked
    std::optional<spec::DsortDryRun> m_plan;
};

}  // namespace tessera::console
