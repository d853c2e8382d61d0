// Data protection's wire types: the mirror and ec bucket props, the job args
// of reprotect and scrub with their counters, and a slice's metadata (JSON in
// its xattr, headers between targets).
#include "api/bmd.h"
#include "api/http_error.h"
#include "api/job.h"
#include "api/object_meta.h"
#include "api/slice_meta.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera::api;

class TestProtectionMessages : public QObject {
    Q_OBJECT

private slots:
    void ecPropsRoundTrip()
    {
        BucketProps p;
        p.created = 9;
        p.ec.enabled = true;
        p.ec.dataSlices = 4;
        p.ec.paritySlices = 2;
        p.ec.objsizeLimit = 4096;
        p.ec.pending = true;
        const auto j = nlohmann::json(p);
        QCOMPARE(
            j["ec"].dump(),
            std::string(R"({"data_slices":4,"enabled":true,"objsize_limit":4096,"parity_slices":2,"pending":true})"));
        auto back = parseBucketProps(j.dump());
        QVERIFY(back.ok());
        QVERIFY(back->ec == p.ec);
        QVERIFY(*back == p);
        // Buckets made before erasure coding existed: no "ec", the defaults.
        auto old = nlohmann::json(p);
        old.erase("ec");
        auto legacy = parseBucketProps(old.dump());
        QVERIFY(legacy.ok());
        QVERIFY(legacy->ec == EcConf{});
        QCOMPARE(legacy->ec.objsizeLimit, std::int64_t{256} << 10);
        QVERIFY(!legacy->ec.enabled);

        BucketProps q;
        QVERIFY(applyPropsUpdate(
                    q, nlohmann::json::parse(
                           R"({"ec":{"enabled":true,"data_slices":16,"parity_slices":8,"objsize_limit":1073741824}})"))
                    .ok());
        QVERIFY(q.ec.enabled);
        QCOMPARE(q.ec.dataSlices, 16);
        QCOMPARE(q.ec.paritySlices, 8);
        QCOMPARE(q.ec.objsizeLimit, std::int64_t{1} << 30);
        QCOMPARE(q.ec.targets(), std::size_t{25});
        QVERIFY(q.ec.sliced(std::int64_t{1} << 30));
        QVERIFY(!q.ec.sliced((std::int64_t{1} << 30) - 1));
        const BucketProps before = q;
        for (const char* bad :
             {R"({"ec":{"data_slices":0}})", R"({"ec":{"data_slices":17}})", R"({"ec":{"parity_slices":0}})",
              R"({"ec":{"parity_slices":9}})", R"({"ec":{"objsize_limit":-1}})",
              R"({"ec":{"objsize_limit":1073741825}})", R"({"ec":{"enabled":1}})", R"({"ec":{"pending":false}})",
              R"({"ec":{"slices":2}})", R"({"ec":{"data_slices":2.5}})", R"({"ec":true})"}) {
            auto r = applyPropsUpdate(q, nlohmann::json::parse(bad));
            QVERIFY2(!r.ok(), bad);
            QCOMPARE(r.kind(), ErrorKind::BadRequest);
            QVERIFY2(q == before, bad);
        }
        auto r = applyPropsUpdate(q, nlohmann::json::parse(R"({"ec":{"parity_slices":9}})"));
        QCOMPARE(r.error().message, std::string("ec.parity_slices must be an integer from 1 to 8"));
    }

    void mirrorProps()
    {
        BucketProps p;
        p.mirror = MirrorConf{true, 3, true, true};
        auto back = parseBucketProps(nlohmann::json(p).dump());
        QVERIFY(back.ok() && *back == p);
        const auto j = nlohmann::json(p)["mirror"];
        QCOMPARE(j["copies"].get<int>(), 3);
        QCOMPARE(j["across_targets"].get<bool>(), true);
        QCOMPARE(j["pending"].get<bool>(), true);
        QCOMPARE(back->mirror.targetCopies(), std::size_t{3});
        // Props stored before mirroring existed read as not mirrored.
        auto old = parseBucketProps(
            R"({"provider":"ais","created":1,"checksum":{"type":"xxhash","validate_warm_get":false}})");
        QVERIFY(old.ok());
        QVERIFY(old->mirror == MirrorConf{});
        QCOMPARE(old->mirror.targetCopies(), std::size_t{1});

        BucketProps q;
        QVERIFY(applyPropsUpdate(
                    q, nlohmann::json::parse(R"({"mirror":{"enabled":true,"copies":2,"across_targets":true}})"))
                    .ok());
        QVERIFY(q.mirror == (MirrorConf{true, 2, true, false}));
        QCOMPARE(q.mirror.targetCopies(), std::size_t{2});
        QCOMPARE(q.mirror.mountpathCopies(), std::size_t{1});
        const BucketProps before = q;
        for (const char* bad :
             {R"({"mirror":{"copies":0}})", R"({"mirror":{"copies":9}})", R"({"mirror":{"copies":"2"}})",
              R"({"mirror":{"copies":2.5}})", R"({"mirror":{"enabled":1}})", R"({"mirror":{"pending":false}})",
              R"({"mirror":{"burst":4}})", R"({"mirror":true})", R"({"mirror":{"enabled":false,"copies":-1}})"}) {
            auto r = applyPropsUpdate(q, nlohmann::json::parse(bad));
            QVERIFY2(!r.ok(), bad);
            QCOMPARE(r.kind(), ErrorKind::BadRequest);
            QVERIFY2(q == before, bad);
        }
        QVERIFY(applyPropsUpdate(q, nlohmann::json::parse(R"({"mirror":{"enabled":false}})")).ok());
        QCOMPARE(q.mirror.targetCopies(), std::size_t{1});
    }

    void bucketJobArgs()
    {
        const BucketJobArgs a{std::string("data")};
        auto back = parseMessage<BucketJobArgs>(nlohmann::json(a).dump(), "scrub");
        QVERIFY(back.ok());
        QCOMPARE(*back->bucket, std::string("data"));
        auto all = parseMessage<BucketJobArgs>("{}", "scrub");
        QVERIFY(all.ok() && !all->bucket);
        QVERIFY(nlohmann::json(BucketJobArgs{}) == nlohmann::json::object());
        QCOMPARE(parseMessage<BucketJobArgs>(R"({"bucket":5})", "scrub").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseMessage<BucketJobArgs>(R"({"bucket":"x"})", "scrub").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseMessage<BucketJobArgs>(R"({"bucket":"data","all":true})", "scrub").kind(), ErrorKind::BadRequest);
        // A job's progress carries its kind's counters, summed by the proxy.
        JobProgress pr;
        pr.counters = {{"checked", 10}, {"repaired", 1}};
        QVERIFY(nlohmann::json(pr).get<JobProgress>().counters == pr.counters);
        QVERIFY(!nlohmann::json(JobProgress{}).contains("counters"));
    }

    // A slice's metadata: JSON (its xattr) and headers (between targets)
    // carry the same; what does not validate is refused.
    void sliceMetaRoundTrip()
    {
        SliceMeta m;
        m.object.size = 1000001;
        m.object.checksumValue = "0123456789abcdef";
        m.object.version = "3";
        m.object.stamp = 1795626494204083414;
        m.object.atimeNs = 7;
        m.object.custom = {{"k", "v"}, {"label", "cat"}};  // one line on the wire: the holder reads one value per name
        m.index = 5;
        m.data = 4;
        m.parity = 2;
        m.sliceSize = 250001;
        m.sliceChecksum = "fedcba9876543210";
        auto back = parseSliceMeta(nlohmann::json(m).dump());
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QVERIFY(*back == m);

        HeaderPairs headers;
        appendSliceHeaders(headers, m, "t1");
        const auto header = [&](std::string_view name) {
            for (const auto& [k, v] : headers) {
                if (k == name) return v;
            }
            return std::string();
        };
        auto fromHeaders = sliceFromHeaders(header);
        QVERIFY2(fromHeaders.ok(), fromHeaders.ok() ? "" : fromHeaders.error().message.c_str());
        QCOMPARE(fromHeaders->index, m.index);
        QCOMPARE(fromHeaders->sliceSize, m.sliceSize);
        QCOMPARE(fromHeaders->sliceChecksum, m.sliceChecksum);
        QCOMPARE(fromHeaders->object.stamp, m.object.stamp);
        QCOMPARE(fromHeaders->object.size, m.object.size);
        QVERIFY(fromHeaders->object.custom == m.object.custom);

        auto bad = m;
        bad.index = 6;  // D + P = 6: indexes 0..5
        QCOMPARE(validate(bad).kind(), ErrorKind::BadRequest);
        bad = m;
        bad.sliceSize = 250000;  // not ceil(size / D)
        QCOMPARE(validate(bad).kind(), ErrorKind::BadRequest);
        bad = m;
        bad.data = 17;
        QCOMPARE(validate(bad).kind(), ErrorKind::BadRequest);
        QCOMPARE(parseSliceMeta(R"({"index":1})").ok(), false);
        headers.pop_back();  // no slice checksum
        QCOMPARE(sliceFromHeaders(header).kind(), ErrorKind::BadRequest);
    }
};

QTEST_APPLESS_MAIN(TestProtectionMessages)
#include "test_protection_messages.moc"
