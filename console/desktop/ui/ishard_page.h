#pragma once
// The ishard composer (docs/console.md): the shared composer page
// (SpecComposerPage) with ishard's form — source bucket and prefix, output
// bucket, shard size or sample count, shard name template and format, the
// sample key rule, the order, the extensions every sample should have and
// what to do when one lacks them. Preview asks the proxy for the plan
// (POST /v1/ishard?dry_run=true): every shard with its samples, objects and
// size, and the first samples as grouped (key, shard, files), warnings and
// excluded samples. Start submits the previewed spec when the document has
// not changed since (a shuffle's seed chosen by the proxy), else the text.

#include "spec/ishard_plan.h"
#include "ui/spec_composer_page.h"

#include <nlohmann/json.hpp>

namespace tessera::console {

class IshardPage : public SpecComposerPage {
    Q_OBJECT
public:
    // `specs` may be null (no database): nothing is saved.
    IshardPage(RestClient* rest, SpecStore* specs, QWidget* parent = nullptr);

    QStandardItemModel* shardsModel() const { return m_outputModel; }
    QStandardItemModel* samplesModel() const { return m_firstModel; }
    std::optional<spec::IshardDryRun> lastPlan() const { return m_plan; }

public slots:
    void runPreview() override;

protected:
    QString emptySpec() const override;
    void documentChanged() override;
    void submit(const QByteArray& body, bool yaml, std::function<void(api::Result<QString>)> done) override;
    QByteArray startBody(bool* yaml, QString* outputBucket) const override;

private:
    void buildForm();
    void showPlan(const spec::IshardDryRun& plan);

    QLineEdit* m_sampleExts = nullptr;
    std::optional<spec::IshardDryRun> m_plan;
};

}  // namespace tessera::console
