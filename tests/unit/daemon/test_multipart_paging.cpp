// Paging of ListParts and ListMultipartUploads (daemon/s3/multipart_paging.h)
// against the S3 API reference: exact pages, markers, the upload-id-marker
// rule, prefix and delimiter roll-up, and the refusal of bad numbers.
#include "s3/multipart_paging.h"

#include <QTest>

using namespace tessera;
using namespace tessera::daemon::s3;

namespace {

std::vector<api::MultipartPart> parts(std::uint32_t n)
{
    std::vector<api::MultipartPart> out;
    for (std::uint32_t i = n; i >= 1; --i) out.push_back({i, "etag" + std::to_string(i), 5, 0});  // any order
    return out;
}

std::vector<std::uint32_t> numbers(const PartPage& p)
{
    std::vector<std::uint32_t> out;
    for (const auto& x : p.parts) out.push_back(x.number);
    return out;
}

api::MultipartUpload upload(const std::string& key, const std::string& id)
{
    api::MultipartUpload u;
    u.bucket = "b";
    u.key = key;
    u.uploadId = id;
    return u;
}

std::vector<std::string> listed(const UploadPage& p)
{
    std::vector<std::string> out;
    for (const auto& u : p.uploads) out.push_back(u.key + "#" + u.uploadId);
    return out;
}

using Strings = std::vector<std::string>;

}  // namespace

class TestMultipartPaging : public QObject {
    Q_OBJECT

private slots:
    void partsPagedByTen()
    {
        auto first = pageParts(parts(25), 0, 10);
        QCOMPARE(numbers(first), (std::vector<std::uint32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
        QVERIFY(first.truncated);
        QCOMPARE(first.nextMarker, 10u);
        auto second = pageParts(parts(25), first.nextMarker, 10);
        QCOMPARE(second.parts.front().number, 11u);
        QVERIFY(second.truncated);
        QCOMPARE(second.nextMarker, 20u);
        auto last = pageParts(parts(25), second.nextMarker, 10);
        QCOMPARE(numbers(last), (std::vector<std::uint32_t>{21, 22, 23, 24, 25}));
        QVERIFY(!last.truncated);
        QCOMPARE(last.nextMarker, 25u);
        // Exactly a page: not truncated.
        QVERIFY(!pageParts(parts(10), 0, 10).truncated);
        auto past = pageParts(parts(25), 25, 10);
        QVERIFY(past.parts.empty() && !past.truncated);
        QCOMPARE(past.nextMarker, 0u);
    }

    void pageSizesAndMarkers()
    {
        QCOMPARE(*parsePageSize("", "max-parts"), 1000u);
        QCOMPARE(*parsePageSize("10", "max-parts"), 10u);
        QCOMPARE(*parsePageSize("5000", "max-parts"), 1000u);  // capped
        QCOMPARE(*parsePageSize("0", "max-parts"), 0u);
        for (const char* bad : {"-1", "ten", "1.5", "2147483648", " 5", "5 "}) {
            auto r = parsePageSize(bad, "max-parts");
            QCOMPARE(r.kind(), api::ErrorKind::BadRequest);
            QVERIFY(r.error().message.rfind("InvalidArgument: max-parts", 0) == 0);
        }
        QCOMPARE(*parsePartMarker(""), 0u);
        QCOMPARE(*parsePartMarker("9999"), 9999u);
        QCOMPARE(parsePartMarker("x").kind(), api::ErrorKind::BadRequest);
    }

    void uploadsPagedByFive()
    {
        std::vector<api::MultipartUpload> all;
        for (int i = 11; i >= 0; --i) all.push_back(upload("k" + std::to_string(i % 4), "id" + std::to_string(i)));
        UploadQuery q;
        q.maxUploads = 5;
        Strings seen;
        for (int page = 0; page < 4; ++page) {
            auto p = pageUploads(all, q);
            for (auto& s : listed(p)) seen.push_back(s);
            if (!p.truncated) {
                QCOMPARE(page, 2);  // 5 + 5 + 2
                QVERIFY(p.nextKeyMarker.empty() && p.nextUploadIdMarker.empty());
                break;
            }
            QCOMPARE(p.uploads.size(), std::size_t{5});
            QCOMPARE(p.nextKeyMarker, p.uploads.back().key);
            QCOMPARE(p.nextUploadIdMarker, p.uploads.back().uploadId);
            q.keyMarker = p.nextKeyMarker;
            q.uploadIdMarker = p.nextUploadIdMarker;
        }
        // By key, then upload id; each once.
        QCOMPARE(seen, (Strings{"k0#id0", "k0#id4", "k0#id8", "k1#id1", "k1#id5", "k1#id9", "k2#id10", "k2#id2",
                                "k2#id6", "k3#id11", "k3#id3", "k3#id7"}));
    }

    void markerRules()
    {
        const std::vector<api::MultipartUpload> all{upload("a", "1"), upload("b", "1"), upload("b", "2"),
                                                    upload("c", "1")};
        UploadQuery q;
        q.keyMarker = "b";  // no upload-id-marker: keys after "b" only
        QCOMPARE(listed(pageUploads(all, q)), Strings{"c#1"});
        q.uploadIdMarker = "1";  // and b's uploads after id "1"
        QCOMPARE(listed(pageUploads(all, q)), (Strings{"b#2", "c#1"}));
        q.keyMarker.clear();  // an upload-id-marker alone is ignored
        QCOMPARE(listed(pageUploads(all, q)).size(), std::size_t{4});
    }

    void prefixAndDelimiter()
    {
        const std::vector<api::MultipartUpload> all{upload("logs/2026/a", "1"), upload("logs/2026/b", "1"),
                                                    upload("logs/2027/a", "1"), upload("logs/top", "1"),
                                                    upload("other", "1")};
        UploadQuery q;
        q.prefix = "logs/";
        q.delimiter = "/";
        auto p = pageUploads(all, q);
        QCOMPARE(p.commonPrefixes, (Strings{"logs/2026/", "logs/2027/"}));
        QCOMPARE(listed(p), Strings{"logs/top#1"});
        QVERIFY(!p.truncated);
        // One per page: a common prefix counts once and is the next marker;
        // the next page skips its keys.
        q.maxUploads = 1;
        p = pageUploads(all, q);
        QCOMPARE(p.commonPrefixes, Strings{"logs/2026/"});
        QVERIFY(p.truncated);
        QCOMPARE(p.nextKeyMarker, std::string("logs/2026/"));
        QVERIFY(p.nextUploadIdMarker.empty());
        q.keyMarker = p.nextKeyMarker;
        p = pageUploads(all, q);
        QCOMPARE(p.commonPrefixes, Strings{"logs/2027/"});
        q.keyMarker = p.nextKeyMarker;
        p = pageUploads(all, q);
        QCOMPARE(listed(p), Strings{"logs/top#1"});
        QVERIFY(!p.truncated);
    }
};

QTEST_GUILESS_MAIN(TestMultipartPaging)
#include "test_multipart_paging.moc"
