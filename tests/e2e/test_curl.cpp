// curl, a third-party client, against a real cluster: redirects on PUT and
// GET, Expect: 100-continue, ranges, HEAD headers, bucket calls, listing
// (query and JSON body, paging), checksums, JSON errors, direct-to-target.
#include "../integration/local_cluster.h"

#include "api/checksum.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

using namespace tessera;

namespace {
struct CurlResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// Header names (lower case) to values of the last response in a `curl -D -`
// or `curl -i` dump (after redirects, the final one); a field sent on
// several lines is its values joined by ", ".
QMap<QByteArray, QByteArray> lastHeaders(const QByteArray& dump, QByteArray* statusLine = nullptr)
{
    QMap<QByteArray, QByteArray> out;
    const auto blocks = dump.split('\n');
    for (const auto& raw : blocks) {
        const auto line = raw.trimmed();
        if (line.startsWith("HTTP/")) {
            out.clear();
            if (statusLine) *statusLine = line;
            continue;
        }
        const auto colon = line.indexOf(':');
        if (colon <= 0) continue;
        auto& v = out[line.left(colon).toLower()];
        v += (v.isEmpty() ? "" : ", ") + line.mid(colon + 1).trimmed();
    }
    return out;
}
}  // namespace

class TestCurl : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster;
    QTemporaryDir m_dir;
    QString m_curl;

    CurlResult curl(QStringList args)
    {
        QProcess p;
        p.setWorkingDirectory(m_dir.path());
        args.prepend("--show-error");
        args.prepend("--silent");
        p.start(m_curl, args);
        CurlResult r;
        if (!p.waitForFinished(120000)) {
            p.kill();
            p.waitForFinished();
            return r;
        }
        r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        return r;
    }
    // Runs curl with `-w "\n%{http_code}"` appended and splits the answer.
    int curlStatus(QStringList args, QByteArray* body = nullptr)
    {
        args << "-w"
             << "\n%{http_code}";
        auto r = curl(args);
        if (r.exitCode != 0) {
            qWarning("curl %s: exit %d: %s", qPrintable(args.join(' ')), r.exitCode, r.err.constData());
            return -1;
        }
        const auto nl = r.out.lastIndexOf('\n');
        if (body) *body = r.out.left(nl);
        return r.out.mid(nl + 1).toInt();
    }
    QString url(const QString& path) const { return QString::fromStdString(m_cluster.proxyUrl()) + path; }
    QString obj(const QString& name) const { return url("/v1/objects/web/" + name); }
    QByteArray writeRandom(const QString& name, int size, int seed)
    {
        std::mt19937 rng(static_cast<unsigned>(seed));
        QByteArray data(size, '\0');
        for (auto& c : data) c = static_cast<char>(rng());
        QFile f(m_dir.path() + "/" + name);
        if (f.open(QIODevice::WriteOnly)) f.write(data);
        return data;
    }
    QByteArray fileBytes(const QString& name)
    {
        QFile f(m_dir.path() + "/" + name);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
    }
    nlohmann::json listJson(const QString& query)
    {
        QByteArray body;
        if (curlStatus({url("/v1/buckets/web" + query)}, &body) != 200) return nullptr;
        return nlohmann::json::parse(body.toStdString(), nullptr, false);
    }
    static std::vector<std::string> names(const nlohmann::json& page)
    {
        std::vector<std::string> out;
        if (!page.is_object() || !page.contains("entries")) return out;
        for (const auto& e : page["entries"]) out.push_back(e["name"].get<std::string>());
        return out;
    }

private slots:
    void initTestCase()
    {
        m_curl = QStandardPaths::findExecutable("curl");
        if (m_curl.isEmpty()) QSKIP("curl is not installed");
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
    }

    void createBucket()
    {
        QByteArray body;
        QCOMPARE(curlStatus({"-X", "POST", "-d", R"({"action":"create-bck"})", url("/v1/buckets/web")}, &body), 200);
        QVERIFY(body.isEmpty());
        QCOMPARE(curlStatus({"-X", "POST", "-d", R"({"action":"create-bck"})", url("/v1/buckets/web")}, &body), 409);
        auto j = nlohmann::json::parse(body.toStdString());
        QCOMPARE(j["status"].get<int>(), 409);
        QVERIFY(!j["message"].get<std::string>().empty());
        QCOMPARE(curlStatus({url("/v1/buckets")}, &body), 200);
        j = nlohmann::json::parse(body.toStdString());
        QCOMPARE(j.size(), std::size_t{1});
        QCOMPARE(j[0]["name"].get<std::string>(), std::string("web"));
        QCOMPARE(j[0]["provider"].get<std::string>(), std::string("ais"));
    }

    void putAndGetFollowingRedirects()
    {
        // 5 MiB: curl announces Expect: 100-continue; the proxy answers 307
        // before any body byte and curl sends the body to the target only.
        const auto big = writeRandom("big.bin", 5 << 20, 1);
        auto r = curl({"-v", "-L", "-T", "big.bin", "-w", "%{http_code} %{num_redirects}", "-o", "/dev/null",
                       obj("dir/big.bin")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QByteArray("200 1"));
        QVERIFY2(r.err.contains("> Expect: 100-continue"), r.err.constData());
        QVERIFY(r.err.contains("< HTTP/1.1 307"));
        QVERIFY(r.err.contains("< HTTP/1.1 100 Continue"));
        QVERIFY(r.err.contains("smap_version="));

        const auto tiny = writeRandom("tiny.bin", 10, 2);
        QCOMPARE(curlStatus({"-L", "-T", "tiny.bin", "-o", "/dev/null", obj("tiny.bin")}), 200);

        QCOMPARE(curlStatus({"-L", "-o", "got.bin", obj("dir/big.bin")}), 200);
        QVERIFY(fileBytes("got.bin") == big);
        r = curl({"-L", obj("tiny.bin")});
        QVERIFY(r.out == tiny);
        // Without -L the proxy's answer is the redirect itself.
        r = curl({"-i", obj("tiny.bin")});
        QByteArray status;
        const auto h = lastHeaders(r.out, &status);
        QVERIFY2(status.startsWith("HTTP/1.1 307"), status.constData());
        QVERIFY(h.value("location").contains("/v1/objects/web/tiny.bin?smap_version="));
    }

    void putWithoutExpect()
    {
        // 200 KiB sent at once (Expect disabled): the proxy answers 307 without
        // reading the body and closes; curl rewinds the file for the target.
        const auto mid = writeRandom("mid.bin", 200 * 1024, 3);
        QCOMPARE(curlStatus({"-L", "-H", "Expect:", "-T", "mid.bin", "-o", "/dev/null", obj("mid.bin")}), 200);
        QCOMPARE(curlStatus({"-L", "-o", "mid-got.bin", obj("mid.bin")}), 200);
        QVERIFY(fileBytes("mid-got.bin") == mid);
    }

    void ranges()
    {
        const auto data = writeRandom("r.bin", 1000, 4);
        QCOMPARE(curlStatus({"-L", "-T", "r.bin", "-o", "/dev/null", obj("r.bin")}), 200);
        auto r = curl({"-L", "-r", "0-99", "-D", "headers.txt", obj("r.bin")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out == data.left(100));
        QByteArray status;
        auto h = lastHeaders(fileBytes("headers.txt"), &status);
        QVERIFY2(status.startsWith("HTTP/1.1 206"), status.constData());
        QCOMPARE(h.value("content-range"), QByteArray("bytes 0-99/1000"));
        QCOMPARE(h.value("content-length"), QByteArray("100"));
        QCOMPARE(h.value("accept-ranges"), QByteArray("bytes"));

        r = curl({"-L", "-r", "900-", obj("r.bin")});
        QVERIFY(r.out == data.mid(900));
        r = curl({"-L", "-r", "-10", obj("r.bin")});  // the last 10 bytes
        QVERIFY(r.out == data.right(10));
        r = curl({"-L", "-r", "990-5000", obj("r.bin")});  // clipped to the end
        QVERIFY(r.out == data.mid(990));

        r = curl({"-L", "-r", "2000-", "-D", "headers.txt", "-w", "\n%{http_code}", obj("r.bin")});
        QVERIFY(r.out.endsWith("\n416"));
        h = lastHeaders(fileBytes("headers.txt"));
        QCOMPARE(h.value("content-range"), QByteArray("bytes */1000"));
        auto err = nlohmann::json::parse(r.out.left(r.out.lastIndexOf('\n')).toStdString());
        QCOMPARE(err["status"].get<int>(), 416);

        QCOMPARE(curlStatus({"-L", "-r", "0-1,5-6", "-o", "/dev/null", obj("r.bin")}), 400);  // one range only
    }

    void headHeaders()
    {
        const auto data = writeRandom("h.bin", 777, 5);
        QCOMPARE(curlStatus({"-L", "-T", "h.bin", "-H", "ais-custom-md: label=cat,source=cam-1", "-o", "/dev/null",
                             obj("sub/h.bin")}),
                 200);
        auto r = curl({"-L", "-I", obj("sub/h.bin")});
        QCOMPARE(r.exitCode, 0);
        const auto lower = r.out.toLower();
        QVERIFY(lower.startsWith("http/1.1 307"));  // the proxy's redirect comes first
        QByteArray status;
        auto h = lastHeaders(r.out, &status);
        QVERIFY2(status.startsWith("HTTP/1.1 200"), status.constData());
        QCOMPARE(h.value("content-length"), QByteArray("777"));
        QCOMPARE(h.value("ais-size"), QByteArray("777"));
        QCOMPARE(h.value("ais-checksum-type"), QByteArray("xxhash"));
        QCOMPARE(h.value("ais-checksum-value"), QByteArray::fromStdString(api::xxhash64Hex(data.toStdString())));
        QCOMPARE(h.value("ais-version"), QByteArray("1"));
        // As AIStore sends it: one "k=v" line per entry.
        QCOMPARE(h.value("ais-custom-md"), QByteArray("label=cat, source=cam-1"));
        QCOMPARE(h.value("ais-name"), QByteArray("web/sub/h.bin"));
        QVERIFY(QRegularExpression("^[0-9]{19}$").match(QString::fromLatin1(h.value("ais-atime"))).hasMatch());
        bool known = false;
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            known = known || h.value("ais-location").toStdString() == m_cluster.targetId(i);
        }
        QVERIFY2(known, h.value("ais-location").constData());

        // Overwrite: version 2, new checksum, the old custom metadata gone.
        const auto second = writeRandom("h2.bin", 12, 6);
        QCOMPARE(curlStatus({"-L", "-T", "h2.bin", "-o", "/dev/null", obj("sub/h.bin")}), 200);
        h = lastHeaders(curl({"-L", "-I", obj("sub/h.bin")}).out);
        QCOMPARE(h.value("ais-version"), QByteArray("2"));
        QCOMPARE(h.value("ais-size"), QByteArray("12"));
        QVERIFY(!h.contains("ais-custom-md"));

        // HEAD of a missing object: 404 after the redirect.
        r = curl({"-L", "-I", obj("sub/missing.bin")});
        lastHeaders(r.out, &status);
        QVERIFY2(status.startsWith("HTTP/1.1 404"), status.constData());
    }

    void checksumOnPut()
    {
        const auto data = writeRandom("c.bin", 4096, 7);
        const auto good = QString::fromStdString(api::xxhash64Hex(data.toStdString()));
        QCOMPARE(curlStatus({"-L", "-T", "c.bin", "-H", "ais-checksum-type: xxhash", "-H",
                             "ais-checksum-value: " + good, "-o", "/dev/null", obj("c.bin")}),
                 200);
        QByteArray body;
        QCOMPARE(curlStatus({"-L", "-T", "c.bin", "-H", "ais-checksum-type: xxhash", "-H",
                             "ais-checksum-value: 0123456789abcdef", obj("c-bad.bin")},
                            &body),
                 400);
        QVERIFY2(body.contains("checksum mismatch"), body.constData());
        QCOMPARE(curlStatus({"-L", "-o", "/dev/null", obj("c-bad.bin")}), 404);  // nothing stored
        QCOMPARE(curlStatus({"-L", "-T", "c.bin", "-H", "ais-checksum-type: md5", "-o", "/dev/null", obj("c-md5.bin")}),
                 400);
    }

    void bucketHeadAndProps()
    {
        auto r = curl({"-I", url("/v1/buckets/web")});
        QByteArray status;
        auto h = lastHeaders(r.out, &status);
        QVERIFY2(status.startsWith("HTTP/1.1 200"), status.constData());
        auto props = nlohmann::json::parse(h.value("ais-bucket-props").toStdString());
        QCOMPARE(props["provider"].get<std::string>(), std::string("ais"));
        QCOMPARE(props["checksum"]["type"].get<std::string>(), std::string("xxhash"));
        QCOMPARE(props["checksum"]["validate_warm_get"].get<bool>(), false);

        QByteArray body;
        QCOMPARE(curlStatus(
                     {"-X", "PATCH", "-d", R"({"action":"set-bprops","value":{"checksum":{"validate_warm_get":true}}})",
                      url("/v1/buckets/web")},
                     &body),
                 200);
        QCOMPARE(nlohmann::json::parse(body.toStdString())["checksum"]["validate_warm_get"].get<bool>(), true);
        // GET still works (the stored checksum matches) with validation on.
        QCOMPARE(curlStatus({"-L", "-o", "/dev/null", obj("r.bin")}), 200);
        QCOMPARE(curlStatus({"-X", "PATCH", "-d", R"({"action":"set-bprops","value":{"ec":{"pending":false}}})",
                             url("/v1/buckets/web")}),
                 400);
        QCOMPARE(curlStatus({"-X", "PATCH", "-d",
                             R"({"action":"set-bprops","value":{"checksum":{"validate_warm_get":false}}})",
                             url("/v1/buckets/web"), "-o", "/dev/null"}),
                 200);
        h = lastHeaders(curl({"-I", url("/v1/buckets/nope")}).out, &status);
        QVERIFY2(status.startsWith("HTTP/1.1 404"), status.constData());
    }

    void listing()
    {
        for (int i = 0; i < 9; ++i) {
            QCOMPARE(curlStatus({"-L", "-T", "tiny.bin", "-o", "/dev/null", obj(QString("page/p%1").arg(i))}), 200);
        }
        auto j = listJson("?props=name,size,checksum,version,atime");
        QVERIFY(j.is_object());
        auto all = names(j);
        QVERIFY(std::is_sorted(all.begin(), all.end()));
        QVERIFY(std::find(all.begin(), all.end(), "dir/big.bin") != all.end());
        QCOMPARE(j["continuation_token"].get<std::string>(), std::string());  // complete
        for (const auto& e : j["entries"]) {
            if (e["name"] == "dir/big.bin") {
                QCOMPARE(e["size"].get<std::string>(), std::to_string(5 << 20));  // AIStore: a string
                QCOMPARE(e["checksum"].get<std::string>().size(), std::size_t{16});
                QCOMPARE(e["version"].get<std::string>(), std::string("1"));
                // AIStore's default atime format: RFC822 in UTC ("26 Nov 26 07:42 UTC").
                QVERIFY2(e["atime"].get<std::string>().ends_with(" UTC"), e.dump().c_str());
            }
        }

        // Paging with pagesize=2 returns every name once, in order.
        std::vector<std::string> paged;
        std::string token;
        int pages = 0;
        for (; pages < 100; ++pages) {
            auto page = listJson("?prefix=page/&pagesize=2&continuation_token=" +
                                 QString::fromLatin1(QUrl::toPercentEncoding(QString::fromStdString(token))));
            QVERIFY(page.is_object());
            QVERIFY(page["entries"].size() <= 2);
            for (auto& n : names(page)) paged.push_back(n);
            token = page["continuation_token"].get<std::string>();
            if (token.empty()) break;
        }
        std::vector<std::string> want;
        for (int i = 0; i < 9; ++i) want.push_back("page/p" + std::to_string(i));
        QCOMPARE(paged, want);
        QCOMPARE(pages + 1, 5);

        // AIStore-style JSON body on GET.
        QByteArray body;
        QCOMPARE(curlStatus({"-X", "GET", "-d",
                             R"({"action":"list","value":{"prefix":"page/p1","pagesize":5,"props":"name,size"}})",
                             url("/v1/buckets/web")},
                            &body),
                 200);
        j = nlohmann::json::parse(body.toStdString());
        QCOMPARE(names(j), std::vector<std::string>{"page/p1"});
        QCOMPARE(j["entries"][0]["size"].get<std::string>(), std::string("10"));

        QCOMPARE(curlStatus({url("/v1/buckets/web?pagesize=10001")}, &body), 400);
        QCOMPARE(curlStatus({url("/v1/buckets/web?props=owner")}, &body), 400);
        QCOMPARE(curlStatus({url("/v1/buckets/nope")}, &body), 404);
    }

    void listingNameOnly()
    {
        // props=name asks for names only: a target's page has no "size", and
        // the proxy's merged page should not invent one.
        auto j = listJson("?prefix=page/&props=name");
        QVERIFY(j.is_object());
        QCOMPARE(j["entries"].size(), std::size_t{9});
        // A missing "size" stays missing through the proxy's merge.
        QVERIFY2(!j["entries"][0].contains("size"), j["entries"][0].dump().c_str());
    }

    void listingSurvivesADroppedEntry()
    {
        // A target drops a walked name it cannot open (deleted between its
        // walk and its stat, or a file left on a non-HRW mountpath). Set up the
        // second case deterministically: target A holds s < x < y, another
        // target holds b > y, and s is moved to A's other mountpath.
        QCOMPARE(curlStatus({"-X", "POST", url("/v1/buckets/lst")}), 200);
        std::map<std::string, std::vector<std::string>> byTarget;  // target id -> names (sorted)
        std::vector<std::string> all;
        for (int i = 0; i < 30; ++i) {
            const auto n = QString("k/n%1").arg(i, 2, 10, QChar('0'));
            auto r = curl({"-L", "-T", "h2.bin", "-D", "-", "-o", "/dev/null", url("/v1/objects/lst/" + n)});
            const auto id = lastHeaders(r.out).value("ais-location").toStdString();
            QVERIFY(!id.empty());
            byTarget[id].push_back(n.toStdString());
            all.push_back(n.toStdString());
        }
        std::string owner, s, x, y, b;
        for (const auto& [id, names] : byTarget) {
            for (std::size_t i = 0; i + 2 < names.size() && b.empty(); ++i) {
                for (const auto& [other, onames] : byTarget) {
                    if (other == id) continue;
                    for (const auto& n : onames) {
                        if (n > names[i + 2] && (b.empty() || n < b)) b = n;
                    }
                }
                if (!b.empty()) owner = id, s = names[i], x = names[i + 1], y = names[i + 2];
            }
            if (!b.empty()) break;
        }
        QVERIFY2(!b.empty(), "no suitable names (30 names over 3 targets)");
        for (const auto& n : all) {
            if (n != s && n != x && n != y && n != b) {
                QCOMPARE(curlStatus({"-L", "-X", "DELETE", url("/v1/objects/lst/" + QString::fromStdString(n))}), 200);
            }
        }
        int ti = 0;
        while (m_cluster.targetId(ti) != owner) ++ti;
        const auto mps = m_cluster.targetMountpaths(ti);
        bool moved = false;
        for (std::size_t i = 0; i < mps.size() && !moved; ++i) {
            const auto from = QString::fromStdString(mps[i] + "/buckets/lst/" + s);
            const auto to = QString::fromStdString(mps[(i + 1) % mps.size()] + "/buckets/lst/" + s);
            if (!QFileInfo::exists(from)) continue;
            QVERIFY(QDir().mkpath(QFileInfo(to).path()));
            QVERIFY(QFile::rename(from, to));
            moved = true;
        }
        QVERIFY(moved);
        QCOMPARE(curlStatus({"-L", "-o", "/dev/null", url("/v1/objects/lst/" + QString::fromStdString(s))}), 404);

        std::vector<std::string> listed;
        std::string token;
        for (int pages = 0; pages < 20; ++pages) {
            QByteArray body;
            QCOMPARE(curlStatus({url("/v1/buckets/lst?prefix=k/&pagesize=2&continuation_token=" +
                                     QString::fromLatin1(QUrl::toPercentEncoding(QString::fromStdString(token))))},
                                &body),
                     200);
            auto page = nlohmann::json::parse(body.toStdString());
            for (auto& n : names(page)) listed.push_back(n);
            token = page["continuation_token"].get<std::string>();
            if (token.empty()) break;
        }
        // A's page {s, x} is full but comes back with one entry: the proxy must
        // not send names beyond A's token (b before y would skip y).
        QCOMPARE(listed, (std::vector<std::string>{x, y, b}));
    }

    void errors()
    {
        QByteArray body;
        QCOMPARE(curlStatus({"-L", obj("a/%2e%2e/b")}, &body), 400);
        auto err = nlohmann::json::parse(body.toStdString());
        QCOMPARE(err["status"].get<int>(), 400);
        QVERIFY(err["message"].get<std::string>().find("invalid object name") != std::string::npos);
        QCOMPARE(curlStatus({"-L", "-T", "tiny.bin", obj("a//b")}, &body), 400);
        QCOMPARE(curlStatus({"-L", obj("bad%zz")}, &body), 400);
        QCOMPARE(curlStatus({"-L", url("/v1/objects/nope/x")}, &body), 404);
        QCOMPARE(curlStatus({"-X", "POST", url("/v1/buckets/Bad_Name")}, &body), 400);
        QCOMPARE(curlStatus({"-X", "PUT", url("/v1/buckets/web")}, &body), 405);
        QCOMPARE(nlohmann::json::parse(body.toStdString())["status"].get<int>(), 405);
        QCOMPARE(curlStatus({url("/v1/nothing")}, &body), 404);
        QCOMPARE(curlStatus({url("/v1/daemon?what=bogus")}, &body), 400);
    }

    void deleteObject()
    {
        QCOMPARE(curlStatus({"-L", "-X", "DELETE", obj("tiny.bin")}), 200);
        QCOMPARE(curlStatus({"-L", "-o", "/dev/null", obj("tiny.bin")}), 404);
        QByteArray body;
        QCOMPARE(curlStatus({"-L", "-X", "DELETE", obj("tiny.bin")}, &body), 404);
        QCOMPARE(nlohmann::json::parse(body.toStdString())["status"].get<int>(), 404);
    }

    void directToTarget()
    {
        auto r = curl({"-o", "/dev/null", "-w", "%{redirect_url}", obj("r.bin")});
        const QString owner = QString::fromLatin1(r.out);
        QVERIFY2(owner.contains("?smap_version="), qPrintable(owner));
        // The owner serves with the version it was given, an older one, or none.
        QCOMPARE(curlStatus({"-o", "/dev/null", owner}), 200);
        QString older = owner;
        older.replace(QRegularExpression("smap_version=\\d+"), "smap_version=1");
        QCOMPARE(curlStatus({"-o", "/dev/null", older}), 200);
        QCOMPARE(curlStatus({"-o", "/dev/null", owner.left(owner.indexOf('?'))}), 200);
        // A version newer than the target's: 503 with Retry-After.
        r = curl({"-i", QString(owner).replace(QRegularExpression("smap_version=\\d+"), "smap_version=999999")});
        QByteArray status;
        auto h = lastHeaders(r.out, &status);
        QVERIFY2(status.startsWith("HTTP/1.1 503"), status.constData());
        QCOMPARE(h.value("retry-after"), QByteArray("1"));
        // A target that does not own the object redirects to the owner.
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            const auto base = QString::fromStdString(m_cluster.targetUrl(i));
            if (owner.startsWith(base + "/")) continue;
            r = curl({"-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", base + "/v1/objects/web/r.bin"});
            QCOMPARE(r.out, "307 " + owner.toLatin1());
        }
    }
};

QTEST_GUILESS_MAIN(TestCurl)
#include "test_curl.moc"
