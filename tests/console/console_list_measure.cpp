// Measures the console's object listing on a real bucket (not a CTest test;
// tests/bench/console_list.sh runs it on a bucket of 1,000,000 objects):
// time to the first page, time to page through everything with
// fetchMore(), pages, and the process's resident memory before and after.
// Usage: console_list_measure --endpoint URL --bucket NAME [--pagesize N] [--folders]
#include "core/rest_client.h"
#include "models/object_model.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QNetworkAccessManager>
#include <QTimer>
#include <cstdio>

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
    QCoreApplication app(argc, argv);
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
        } else {
            std::fprintf(stderr, "usage: console_list_measure --endpoint URL --bucket NAME [--pagesize N] [--folders]\n");
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
    QObject::connect(&model, &ObjectModel::statusChanged, &app, [&] {
        if (!model.errorText().isEmpty()) {
            std::fprintf(stderr, "listing failed: %s\n", qPrintable(model.errorText()));
            app.exit(1);
        } else if (model.isComplete()) {
            app.exit(0);
        } else if (model.canFetchMore()) {
            // What a view does when scrolled to the end: ask for the next page.
            QTimer::singleShot(0, &model, [&] { model.fetchMore(); });
        }
    });
    clock.start();
    model.setBucket(bucket);
    model.fetchMore();
    const int rc = app.exec();
    const qint64 totalMs = clock.elapsed();
    const qint64 rssAfter = rssKiB();
    std::printf("rows %d\npages %llu\nfirst_page_ms %lld\nall_pages_ms %lld\nrss_before_kib %lld\nrss_after_kib %lld\n",
                model.rowCount(), static_cast<unsigned long long>(model.pagesRequested()), firstPageMs, totalMs,
                rssBefore, rssAfter);
    return rc;
}
