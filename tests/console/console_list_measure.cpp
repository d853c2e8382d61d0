// Measures the console's object listing on a real bucket (not a CTest test;
// tests/bench/console_list.sh runs it on a bucket of 1,000,000 objects):
// time to the first page, time to page through everything with
// fetchMore(), pages, and the process's resident memory before and after.
// With --view the pages are asked for by a QTableView scrolled to its end (as
// a user dragging the scroll bar down would), offscreen, and the longest gap
// between two ticks of a 10 ms timer says how long the UI thread was busy.
// Usage: console_list_measure --endpoint URL --bucket NAME [--pagesize N] [--folders] [--view]
#include "core/rest_client.h"
#include "models/object_model.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QNetworkAccessManager>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>
#include <cstdio>
#include <memory>

using namespace tessera::console;

namespace {

qint64 rssKiB()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly)) return -1;
    for (const QByteArray& line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').first().toLongLong();
    }
    return -1;
}

}  // namespace

int main(int argc, char** argv)
{
    bool view = false;
    for (int i = 1; i < argc; ++i) view = view || QByteArray(argv[i]) == "--view";
    if (view && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    std::unique_ptr<QCoreApplication> appHolder =
        view ? std::make_unique<QApplication>(argc, argv) : std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication& app = *appHolder;
    QString endpoint;
    QString bucket;
    int pageSize = 1000;
    bool folders = false;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == "--endpoint" && i + 1 < args.size()) {
            endpoint = args[++i];
        } else if (args[i] == "--bucket" && i + 1 < args.size()) {
            bucket = args[++i];
        } else if (args[i] == "--pagesize" && i + 1 < args.size()) {
            pageSize = args[++i].toInt();
        } else if (args[i] == "--folders") {
            folders = true;
        } else if (args[i] == "--view") {
        } else {
            std::fprintf(
                stderr,
                "usage: console_list_measure --endpoint URL --bucket NAME [--pagesize N] [--folders] [--view]\n");
            return 2;
        }
    }
    if (endpoint.isEmpty() || bucket.isEmpty() || pageSize < 1 || pageSize > 10000) {
        std::fprintf(stderr, "--endpoint, --bucket required; --pagesize 1..10000\n");
        return 2;
    }
    QNetworkAccessManager network;
    RestClient rest(&network);
    rest.setEndpoint(QUrl(endpoint));
    ObjectModel model(&rest);
    model.setFoldersEnabled(folders);
    model.setPageSize(static_cast<std::uint32_t>(pageSize));

    const qint64 rssBefore = rssKiB();
    QElapsedTimer clock;
    qint64 firstPageMs = -1;
    QObject::connect(&model, &ObjectModel::pageLoaded, &app, [&](int) {
        if (firstPageMs < 0) firstPageMs = clock.elapsed();
    });
    std::unique_ptr<QTableView> table;
    if (view) {
        table = std::make_unique<QTableView>();
        table->resize(1000, 700);
        table->verticalHeader()->hide();
        table->verticalHeader()->setDefaultSectionSize(22);
        table->setModel(&model);
        table->show();
    }
    QObject::connect(&model, &ObjectModel::statusChanged, &app, [&] {
        if (!model.errorText().isEmpty()) {
            std::fprintf(stderr, "listing failed: %s\n", qPrintable(model.errorText()));
            app.exit(1);
        } else if (model.isComplete()) {
            app.exit(0);
        } else if (!model.isLoading()) {
            QTimer::singleShot(0, &model, [&] {
                if (table) {
                    // At the end of the scroll range the view asks for more by itself.
                    table->scrollToBottom();
                    if (model.canFetchMore()) model.fetchMore();  // already at the end: no scroll signal
                } else if (model.canFetchMore()) {
                    model.fetchMore();
                }
            });
        }
    });
    QElapsedTimer tick;
    qint64 maxGapMs = 0;
    QTimer ticker;
    ticker.setInterval(10);
    QObject::connect(&ticker, &QTimer::timeout, &app, [&] { maxGapMs = std::max(maxGapMs, tick.restart()); });
    clock.start();
    tick.start();
    ticker.start();
    model.setBucket(bucket);
    if (model.canFetchMore()) model.fetchMore();
    const int rc = app.exec();
    const qint64 totalMs = clock.elapsed();
    const qint64 rssAfter = rssKiB();
    std::printf(
        "rows %d\npages %llu\nfirst_page_ms %lld\nall_pages_ms %lld\nrss_before_kib %lld\nrss_after_kib %lld\n"
        "max_ui_gap_ms %lld\n",
        model.rowCount(), static_cast<unsigned long long>(model.pagesRequested()), firstPageMs, totalMs, rssBefore,
        rssAfter, maxGapMs);
    return rc;
}
