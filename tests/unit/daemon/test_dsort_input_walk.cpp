// dSort's dry run reading its inputs from one walk of the input bucket,
// against a bucket listed in memory the way the proxy lists one (names
// after the token, in order; with the archive flag each shard followed by
// its members).
#include "dsort/dsort_input_walk.h"

#include <QTest>

#include <cstdio>

using namespace tessera;
using tessera::daemon::dsort::walkDsortInputs;

namespace {

struct Obj {
    std::string name;
    std::vector<std::string> members;  // a shard's; none for another object
    bool shard = false;
};

// A bucket as listed through the proxy; counts what the walk asked for.
struct FakeBucket {
    std::vector<Obj> objects;  // in name order
    int pages = 0;
    std::size_t listed = 0;  // objects sent, members not counted

    api::Result<api::ObjectList> list(const std::string&, const api::ListRequest& lr)
    {
        ++pages;
        api::ObjectList out;
        std::uint32_t taken = 0;
        for (const auto& o : objects) {
            if (!o.name.starts_with(lr.prefix) || o.name <= lr.continuationToken) continue;
            if (taken == lr.pageSize) {
                out.continuationToken = out.entries.empty() ? std::string{} : lastObject(out);
                break;
            }
            ++taken;
            ++listed;
            api::ObjEntry e;
            e.name = o.name;
            e.size = 10;
            e.flags = api::kEntryIsCached;
            const bool arch = (lr.flags & api::kLsArchDir) != 0;
            if (arch && o.shard) e.flags |= api::kEntryIsArchive;
            out.entries.push_back(e);
            if (!arch) continue;
            for (const auto& m : o.members) {
                api::ObjEntry me;
                me.name = o.name + "/" + m;
                me.size = 3;
                me.flags = api::kEntryInArch;
                out.entries.push_back(me);
            }
        }
        return out;
    }
    static std::string lastObject(const api::ObjectList& l)
    {
        for (auto it = l.entries.rbegin(); it != l.entries.rend(); ++it) {
            if (!(it->flags & api::kEntryInArch)) return it->name;
        }
        return {};
    }
    daemon::proxy::BucketLister lister()
    {
        return [this](const std::string& b, const api::ListRequest& lr) { return list(b, lr); };
    }
};

std::string numbered(const char* format, int i)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, i);
    return buf;
}

std::vector<spec::DsortPreviewInput> inputsNamed(const std::vector<std::string>& names)
{
    std::vector<spec::DsortPreviewInput> out(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) out[i].name = names[i];
    return out;
}

}  // namespace

class TestDsortInputWalk : public QObject {
    Q_OBJECT

private slots:
    // Four shards among 20,000 other objects under the same prefix: each is
    // found with its members, and the walk jumps from one to the next
    // instead of listing the others (the walk listed every one of them in
    // pages of 64, 313 pages, before).
    void scatteredInputsSkipTheOtherObjects()
    {
        FakeBucket bucket;
        const std::vector<int> at{123, 5000, 12000, 19990};
        for (int i = 0; i < 20000; ++i) {
            bucket.objects.push_back({numbered("d/%05d.bin", i), {}, false});
            if (std::find(at.begin(), at.end(), i) != at.end()) {
                bucket.objects.push_back({numbered("d/%05d.tar", i), {"a.jpg", "a.cls", "b.jpg"}, true});
            }
        }
        std::vector<std::string> names;
        for (int i : at) names.push_back(numbered("d/%05d.tar", i));
        std::reverse(names.begin(), names.end());  // any order
        auto inputs = inputsNamed(names);
        QVERIFY(walkDsortInputs(bucket.lister(), "b", inputs, 1000).ok());
        for (const auto& in : inputs) {
            QVERIFY2(in.found && in.read && in.error.empty(), in.name.c_str());
            QCOMPARE(in.members.size(), std::size_t{3});
            QCOMPARE(in.members[0].name, std::string("a.jpg"));
            QCOMPARE(in.members[2].size, std::uint64_t{3});
        }
        QVERIFY2(bucket.pages <= 8, std::to_string(bucket.pages).c_str());
        QVERIFY2(bucket.listed <= 4 * 64 + 8, std::to_string(bucket.listed).c_str());
    }

    // Inputs next to each other come in full pages; one that does not
    // exist is not found, one that is not a shard says so, and the walk
    // stops at the end of the bucket.
    void missingAndNotShards()
    {
        FakeBucket bucket;
        for (int i = 0; i < 200; ++i) bucket.objects.push_back({numbered("s/%04d.tar", i), {"x.txt"}, i != 7});
        std::vector<std::string> names;
        for (int i = 0; i < 200; ++i) {
            if (i != 50) names.push_back(numbered("s/%04d.tar", i));
        }
        names.push_back("s/0050.tgz");  // not there
        names.push_back("s/9999.tar");  // after every name
        auto inputs = inputsNamed(names);
        QVERIFY(walkDsortInputs(bucket.lister(), "b", inputs, 100000).ok());
        for (const auto& in : inputs) {
            const bool there = in.name.ends_with(".tar") && in.name != "s/9999.tar";
            QCOMPARE(in.found, there);
            if (!there) continue;
            QVERIFY(in.read);
            if (in.name == "s/0007.tar") {
                QCOMPARE(in.error, std::string("not a shard"));
            } else {
                QVERIFY(in.error.empty());
                QCOMPARE(in.members.size(), std::size_t{1});
            }
        }
        QVERIFY2(bucket.pages <= 5, std::to_string(bucket.pages).c_str());  // 200 names in pages of 64
    }

    // After the member budget the walk only learns which inputs exist.
    void memberBudget()
    {
        FakeBucket bucket;
        std::vector<std::string> names;
        for (int i = 0; i < 300; ++i) {
            bucket.objects.push_back({numbered("m/%04d.tar", i), {"1", "2", "3", "4"}, true});
            names.push_back(numbered("m/%04d.tar", i));
        }
        auto inputs = inputsNamed(names);
        QVERIFY(walkDsortInputs(bucket.lister(), "b", inputs, 100).ok());
        std::size_t read = 0;
        for (const auto& in : inputs) {
            QVERIFY(in.found);
            if (in.read) {
                ++read;
                QCOMPARE(in.members.size(), std::size_t{4});
            } else {
                QVERIFY(in.members.empty());
            }
        }
        QCOMPARE(read, std::size_t{64});  // the first page's shards: 256 members then
    }

    // The jump stops before a whole UTF-8 character: the token stays text.
    void jumpKeepsUtf8Whole()
    {
        FakeBucket bucket;
        for (int i = 0; i < 500; ++i) bucket.objects.push_back({numbered("u/%04d", i), {}, false});
        bucket.objects.push_back({"u/\xc3\xa9t\xc3\xa9", {"m"}, true});  // "u/été"
        std::vector<std::string> seen;
        auto lister = bucket.lister();
        auto inputs = inputsNamed({"u/0000", "u/\xc3\xa9t\xc3\xa9"});
        const auto recording = [&](const std::string& b, const api::ListRequest& lr) {
            seen.push_back(lr.continuationToken);
            return lister(b, lr);
        };
        QVERIFY(walkDsortInputs(recording, "b", inputs, 1000).ok());
        QVERIFY(inputs[1].found && inputs[1].read);
        QCOMPARE(inputs[1].members.size(), std::size_t{1});
        QCOMPARE(seen.size(), std::size_t{2});
        QCOMPARE(seen[1], std::string("u/\xc3\xa9t"));
    }

    void listingErrorNamed()
    {
        auto inputs = inputsNamed({"x.tar"});
        const auto failing = [](const std::string&, const api::ListRequest&) -> api::Result<api::ObjectList> {
            return api::Error::unavailable("listing incomplete: target t1 is unreachable");
        };
        auto st = walkDsortInputs(failing, "src", inputs, 10);
        QVERIFY(!st.ok());
        QCOMPARE(st.kind(), api::ErrorKind::Unavailable);
        QCOMPARE(st.error().message, std::string("cannot list src: listing incomplete: target t1 is unreachable"));
    }
};

QTEST_GUILESS_MAIN(TestDsortInputWalk)
#include "test_dsort_input_walk.moc"
