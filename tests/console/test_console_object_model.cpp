// ObjectModel and BucketModel against a real local cluster: 20k objects paged
// exactly once and in order, stale pages dropped, virtual folders, bucket
// summaries; every model under QAbstractItemModelTester.
#include "client/api_client.h"
#include "core/rest_client.h"
#include "local_cluster.h"
#include "models/bucket_model.h"
#include "models/object_model.h"
#include "object_filler.h"
#include "rest_cluster.h"

#include <QAbstractItemModelTester>
#include <QNetworkAccessManager>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace tessera;
using namespace tessera::console;

namespace {

constexpr int kObjects = 20000;

QString bigName(int i) { return QStringLiteral("obj-%1").arg(i, 5, 10, QChar('0')); }
QByteArray bigBody(int i) { return QByteArray::number(i); }

bool createBucket(RestClient& rest, const QString& name)
{
    bool ok = false;
    bool done = false;
    QObject ctx;
    rest.createBucket(name, &ctx, [&](api::Status st) {
        ok = st.ok();
        done = true;
    });
    return QTest::qWaitFor([&] { return done; }, 10000) && ok;
}

// Client aborts and errors over every kind, summed over the cluster's nodes.
struct Refusals {
    std::uint64_t aborts = 0;
    std::uint64_t errors = 0;
};
Refusals refusals(const std::string& proxy)
{
    client::Client c(proxy);
    const auto stats = c.clusterStats();
    if (!stats) qFatal("cluster stats: %s", stats.error().message.c_str());
    Refusals r;
    for (const auto* nodes : {&stats->proxies, &stats->targets}) {
        for (const auto& [id, node] : *nodes) {
            for (const auto& op : node.ops) {
                r.aborts += op.aborts;
                r.errors += op.errors;
            }
        }
    }
    return r;
}

bool waitComplete(ObjectModel& model, int timeoutMs = 60000)
{
    return QTest::qWaitFor(
        [&] {
            if (model.canFetchMore()) model.fetchMore();
            return model.isComplete() || !model.errorText().isEmpty();
        },
        timeoutMs);
}

}  // namespace

class TestConsoleObjectModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(test::startRestCluster(m_network, 2, m_cluster, m_rest), m_cluster->error().c_str());
        QVERIFY(createBucket(*m_rest, "big"));
        QVERIFY(createBucket(*m_rest, "tree"));
        const std::string proxy = m_cluster->proxyUrl();
        const QString err = test::fillObjects(
            proxy, "big", kObjects, [](int i) { return bigName(i).toStdString(); },
            [](int i) { return bigBody(i).toStdString(); });
        QVERIFY2(err.isEmpty(), qPrintable(err));
        const std::vector<std::string> tree = {"a.txt", "dir/x", "dir/y", "dir/sub/z", "dir-2", "e/f", "z.bin"};
        const QString err2 = test::fillObjects(
            proxy, "tree", int(tree.size()), [&](int i) { return tree[i]; }, [&](int i) { return tree[i]; });
        QVERIFY2(err2.isEmpty(), qPrintable(err2));
    }

    void pagesThroughTwentyThousandOnceInOrder()
    {
        ObjectModel model(m_rest.get());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPageSize(1000);
        QCOMPARE(model.statusText(), QStringLiteral("no bucket selected"));
        model.setBucket("big");
        if (model.canFetchMore()) model.fetchMore();  // the tester may have asked already
        QVERIFY(model.isLoading());
        QVERIFY(!model.canFetchMore());  // one page in flight at a time
        QSignalSpy pages(&model, &ObjectModel::pageLoaded);
        QVERIFY(pages.wait(10000));
        QCOMPARE(model.rowCount(), 1000);
        QCOMPARE(model.statusText(), QStringLiteral("1,000 loaded · more…"));
        QVERIFY(waitComplete(model));
        QVERIFY2(model.errorText().isEmpty(), qPrintable(model.errorText()));
        QCOMPARE(model.rowCount(), kObjects);
        for (int i = 0; i < kObjects; ++i) {
            if (model.fullName(i) != bigName(i)) QFAIL(qPrintable(QString("row %1: %2").arg(i).arg(model.fullName(i))));
            QCOMPARE(model.objectSize(i), qint64(bigBody(i).size()));
        }
        // 20 full pages, then possibly one empty page that says "complete".
        QVERIFY2(model.pagesRequested() == 20 || model.pagesRequested() == 21,
                 qPrintable(QString::number(model.pagesRequested())));
        QCOMPARE(model.statusText(), QStringLiteral("20,000 loaded · listing complete"));
        QVERIFY(!model.canFetchMore());
        QCOMPARE(model.staleRepliesDropped(), 0u);
    }

    void dropsStaleReplies()
    {
        ObjectModel model(m_rest.get());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPageSize(10000);
        model.setBucket("big");
        if (model.canFetchMore()) model.fetchMore();
        QVERIFY(model.isLoading());
        // The search changes while the first page is on its way: that page
        // belongs to the old generation and must not show up.
        model.setSearch("obj-1999");
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(waitComplete(model));
        QCOMPARE(model.staleRepliesDropped(), 1u);
        QStringList names;
        for (int i = 0; i < model.rowCount(); ++i) names << model.fullName(i);
        QStringList expected;
        for (int i = 19990; i < 20000; ++i) expected << bigName(i);
        QCOMPARE(names, expected);
        QCOMPARE(model.statusText(), QStringLiteral("10 loaded · listing complete"));
    }

    void foldsVirtualFolders()
    {
        ObjectModel model(m_rest.get());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPageSize(1);  // a page ends inside "dir/": the next one skips the rest of it
        model.setBucket("tree");
        QVERIFY(waitComplete(model));
        QStringList rows;
        for (int i = 0; i < model.rowCount(); ++i) rows << model.data(model.index(i, 0)).toString();
        QCOMPARE(rows, (QStringList{"a.txt", "dir-2", "dir/", "e/", "z.bin"}));
        QVERIFY(model.isFolder(2));
        QCOMPARE(model.fullName(2), QStringLiteral("dir/"));
        // a.txt, dir-2, dir/sub/z (then the skip), e/f, z.bin, and at most one empty last page.
        QVERIFY2(model.pagesRequested() <= 6, qPrintable(QString::number(model.pagesRequested())));

        model.setFolder("dir/");
        QVERIFY(waitComplete(model));
        rows.clear();
        for (int i = 0; i < model.rowCount(); ++i) rows << model.data(model.index(i, 0)).toString();
        QCOMPARE(rows, (QStringList{"sub/", "x", "y"}));
        QCOMPARE(model.fullName(1), QStringLiteral("dir/x"));

        model.setFoldersEnabled(false);
        QVERIFY(waitComplete(model));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.data(model.index(0, 0)).toString(), QStringLiteral("sub/z"));
    }

    void listingErrorIsShown()
    {
        ObjectModel model(m_rest.get());
        model.setBucket("no-such-bucket");
        QVERIFY(waitComplete(model));
        QVERIFY(model.statusText().startsWith("0 loaded · error: "));
        QVERIFY2(model.errorText().contains("no-such-bucket"), qPrintable(model.errorText()));
        QVERIFY(!model.canFetchMore());
    }

    void bucketSummaries()
    {
        BucketModel model(m_rest.get());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy done(&model, &BucketModel::summariesDone);
        model.refresh();
        QVERIFY(done.wait(30000));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.bucketAt(0), QStringLiteral("big"));
        qint64 bytes = 0;
        for (int i = 0; i < kObjects; ++i) bytes += bigBody(i).size();
        QCOMPARE(model.data(model.index(0, 0), BucketModel::ObjectCountRole).toLongLong(), qint64(kObjects));
        QCOMPARE(model.data(model.index(0, 0), BucketModel::BytesRole).toLongLong(), bytes);
        QCOMPARE(model.data(model.index(0, BucketModel::ObjectsColumn)).toString(), QStringLiteral("20,000"));
        QCOMPARE(model.data(model.index(1, 0), BucketModel::ObjectCountRole).toLongLong(), 7);

        model.setSummaryCap(5000);
        model.refresh();
        QVERIFY(done.wait(30000));
        QCOMPARE(model.data(model.index(0, 0), BucketModel::ObjectCountRole).toLongLong(), 5000);
        QVERIFY(model.data(model.index(0, 0), BucketModel::CappedRole).toBool());
        QCOMPARE(model.data(model.index(0, BucketModel::ObjectsColumn)).toString(), QStringLiteral("≥ 5,000"));

        QSignalSpy op(&model, &BucketModel::operationFinished);
        model.createBucket("fresh");
        QVERIFY(op.wait(10000));
        QCOMPARE(op.last().at(0).toBool(), true);
        QVERIFY(done.wait(30000));
        QCOMPARE(model.rowOf("fresh"), 1);
        model.createBucket("fresh");
        QVERIFY(op.wait(10000));
        QCOMPARE(op.last().at(0).toBool(), false);
        QVERIFY2(op.last().at(1).toString().contains("already exists"), qPrintable(op.last().at(1).toString()));
        model.destroyBucket("fresh");
        QVERIFY(op.wait(10000));
        QCOMPARE(op.last().at(0).toBool(), true);
        QVERIFY(done.wait(30000));
        QCOMPARE(model.rowOf("fresh"), -1);
    }

    void serverFiguresReplaceCounting()
    {
        BucketModel model(m_rest.get());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy done(&model, &BucketModel::summariesDone);
        model.setSummaryCap(5000);
        // The feed's figures for "big" (as of a scan), none for "tree".
        const std::int64_t scannedNs = 1'800'000'000'000'000'000;
        model.setServerSummaries({api::BucketSummary{"big", "ais", std::nullopt, 123456, 7'000'000, scannedNs},
                                  api::BucketSummary{"tree", "ais", std::nullopt, std::nullopt, std::nullopt, 0}});
        model.refresh();
        QVERIFY(done.wait(30000));
        const QModelIndex big = model.index(model.rowOf("big"), BucketModel::ObjectsColumn);
        const QModelIndex tree = model.index(model.rowOf("tree"), BucketModel::ObjectsColumn);
        QCOMPARE(model.data(big, BucketModel::ObjectCountRole).toLongLong(), 123456);  // not the listing's 20,000
        QCOMPARE(model.data(big, BucketModel::BytesRole).toLongLong(), 7'000'000);
        QCOMPARE(model.data(big, BucketModel::CappedRole).toBool(), false);  // beyond the cap of 5,000: exact
        QCOMPARE(model.data(big).toString(), QStringLiteral("123,456"));
        QVERIFY(model.data(big, BucketModel::FromScanRole).toBool());
        QCOMPARE(model.data(big, BucketModel::ScannedAtRole).toDateTime().toMSecsSinceEpoch(), scannedNs / 1'000'000);
        QVERIFY(model.data(big, Qt::ToolTipRole).toString().contains("usage scan at"));
        // "tree" has no server figures: counted from its listing.
        QCOMPARE(model.data(tree, BucketModel::ObjectCountRole).toLongLong(), 7);
        QVERIFY(!model.data(tree, BucketModel::FromScanRole).toBool());
        QCOMPARE(model.data(tree, Qt::ToolTipRole).toString(), QStringLiteral("counted from the listing"));
        // An upload into "big" waits for the next scan: nothing to count now.
        model.refreshSummary("big");
        QVERIFY(!model.isSummarizing());

        // The server has no figures any more (a new target has not scanned):
        // "big" is counted from the listing again, up to the cap.
        model.setServerSummaries({});
        QVERIFY(model.isSummarizing());
        QVERIFY(done.wait(30000));
        QCOMPARE(model.data(big, BucketModel::ObjectCountRole).toLongLong(), 5000);
        QVERIFY(model.data(big, BucketModel::CappedRole).toBool());
        QVERIFY(!model.data(big, BucketModel::FromScanRole).toBool());
    }

    void refreshWhileCountingAbandonsNothing()
    {
        // The feed's snapshot and every bmd message refresh the bucket list,
        // often while the console is still counting a bucket: that count must
        // go on, not be abandoned (each abandoned listing is a client abort at
        // the proxy, which an idle cluster's charts showed as errors).
        const Refusals before = refusals(m_cluster->proxyUrl());
        BucketModel model(m_rest.get());
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy done(&model, &BucketModel::summariesDone);
        int refreshes = 0;
        bool countedMidway = false;
        connect(&model, &BucketModel::refreshed, &model, [&] {
            if (++refreshes > 3) return;
            // On the next turn "big" (2 pages of 10,000) is being counted.
            QTimer::singleShot(0, &model, [&] {
                countedMidway = countedMidway || model.isSummarizing();
                model.refresh();
                model.refresh();  // two at once read the list once more, not twice
            });
        });
        model.refresh();
        QVERIFY(QTest::qWaitFor([&] { return refreshes >= 4 && !model.isSummarizing(); }, 30000));
        QVERIFY(countedMidway);
        QCOMPARE(refreshes, 4);  // the first, then one per pair
        QCOMPARE(model.data(model.index(0, 0), BucketModel::ObjectCountRole).toLongLong(), qint64(kObjects));
        QCOMPARE(model.data(model.index(1, 0), BucketModel::ObjectCountRole).toLongLong(), 7);
        QVERIFY(!done.isEmpty());
        const Refusals after = refusals(m_cluster->proxyUrl());
        QCOMPARE(after.aborts, before.aborts);
        QCOMPARE(after.errors, before.errors);
    }

private:
    std::unique_ptr<tests::LocalCluster> m_cluster;
    QNetworkAccessManager m_network;
    std::unique_ptr<RestClient> m_rest;
};

QTEST_GUILESS_MAIN(TestConsoleObjectModel)
#include "test_console_object_model.moc"
