// The listing page's own codec: dumpObjectList writes exactly what
// dumpJson(json(list)) writes, parseObjectList reads back exactly what was
// written, and malformed or mistyped pages are BadRequest with a reason.
#include "api/go_time_format.h"
#include "api/json_util.h"
#include "api/object_list.h"
#include "api/object_list_raw.h"
#include "api/object_list_scan.h"

#include <QTest>
#include <algorithm>
#include <limits>
#include <random>

using namespace tessera;
using namespace tessera::api;

namespace {

ObjectList sample()
{
    ObjectList l;
    l.uuid = "u-1";
    l.continuationToken = "dir/obj-0042";
    l.flags = 8;
    ObjEntry a;
    a.name = "dir/obj-0001";
    a.size = 1024;
    a.checksum = "0123456789abcdef";
    a.atime = "2026-11-23T01:02:03.000000004Z";
    a.version = "3";
    a.location = "t[t1]:/data/mp1";
    a.custom = "[k:v w:x]";
    a.copies = 2;
    a.flags = kEntryIsCached;
    ObjEntry shard;
    shard.name = "s/shard.tar";
    shard.size = 0;
    shard.flags = kEntryIsArchive;
    ObjEntry member;
    member.name = "s/shard.tar/a \"quoted\" \\ name\twith\x01control";
    member.size = -1;
    member.flags = kEntryInArch;
    ObjEntry broken;
    broken.name = "s/bad.tar";
    broken.size = 7;
    broken.flags = kEntryArchError;
    broken.error = "truncated: line\nbreak";
    ObjEntry gone;  // a stand-in page's deletion record
    gone.name = "dir/obj-0003";
    gone.size = -1;
    gone.flags = kEntryStatusDeleted;
    gone.stamp = 1795719334315846277;
    ObjEntry unicode;
    unicode.name = "img/\xc3\xa9t\xc3\xa9-\xe2\x82\xac.png";  // "été-€.png"
    unicode.size = 5;
    ObjEntry invalid;
    invalid.name = std::string("bytes-\xff\xfe-end");  // not UTF-8: replaced like dumpJson does
    invalid.size = 1;
    l.entries = {a, shard, member, broken, gone, unicode, invalid};
    return l;
}

// Name alphabets for random pages: printable ASCII without escapes; that
// with a space and the two bytes of "\xc3\xa9" (é when they meet, bytes
// that are not UTF-8 when apart); and that with a quote, a backslash, a tab
// and a control byte too.
const std::string kPlainNames = "abcXYZ019/_-";
const std::string kUtf8Names = kPlainNames + ". \xc3\xa9";
const std::string kAnyNames = kUtf8Names + "\"\\\t\x01";

// A random page for the codec's property tests, names drawn from
// `alphabet`. One entry in `stampOneIn` has a stand-in stamp (0: none).
ObjectList randomPage(std::mt19937& rng, int round, const std::string& alphabet, std::size_t stampOneIn)
{
    auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    ObjectList l;
    l.continuationToken = round % 3 == 0 ? "" : "tok-" + std::to_string(round);
    l.uuid = round % 2 == 0 ? "u" + std::to_string(round) : "";
    l.flags = static_cast<std::uint32_t>(pick(4));
    for (std::size_t i = 0, n = pick(40); i < n; ++i) {
        ObjEntry e;
        for (std::size_t k = 0, len = pick(25); k < len; ++k) {
            e.name.push_back(alphabet[pick(alphabet.size())]);
        }
        e.size = pick(3) == 0 ? -1 : static_cast<std::int64_t>(pick(1u << 30));
        if (pick(4) == 0) e.checksum = "0123456789abcdef";
        if (pick(4) == 0) e.atime = "2026-11-23T01:02:03Z";
        if (pick(4) == 0) e.version = std::to_string(pick(9) + 1);
        if (pick(6) == 0) e.location = "t[t1]:/mp" + std::to_string(pick(3));
        if (pick(6) == 0) e.custom = "[k:v]";
        if (pick(6) == 0) e.copies = static_cast<int>(pick(4) + 1);
        if (pick(3) == 0) e.flags = static_cast<std::uint32_t>(pick(1024));
        if (stampOneIn != 0 && pick(stampOneIn) == 0) e.stamp = static_cast<std::int64_t>(pick(1u << 30) + 1) << 30;
        l.entries.push_back(std::move(e));
    }
    return l;
}

}  // namespace

class TestObjectListCodec : public QObject {
    Q_OBJECT

private slots:
    void writesWhatNlohmannWrites()
    {
        const auto l = sample();
        QCOMPARE(dumpObjectList(l), dumpJson(nlohmann::json(l)));
        ObjectList empty;
        QCOMPARE(dumpObjectList(empty), dumpJson(nlohmann::json(empty)));
        QCOMPARE(dumpObjectList(empty), std::string(R"({"continuation_token":"","entries":[],"flags":0,"uuid":""})"));
    }

    void roundTrip()
    {
        auto l = sample();
        l.entries.pop_back();  // the invalid UTF-8 name does not survive any JSON round trip
        auto back = parseObjectList(dumpObjectList(l));
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QCOMPARE(back->uuid, l.uuid);
        QCOMPARE(back->continuationToken, l.continuationToken);
        QCOMPARE(back->flags, l.flags);
        QVERIFY(back->entries == l.entries);
        // The same as the nlohmann path reads.
        auto viaDom = parseJsonAs<ObjectList>(dumpObjectList(l), "object list");
        QVERIFY(viaDom->entries == back->entries);
    }

    // The scanner (the fast path) reads exactly what the full parser reads:
    // random pages, as written and re-indented; each is also parsed with an
    // unknown field added, which the scanner leaves to the full parser.
    void fastPathAgreesWithTheFullParser()
    {
        std::mt19937 rng(7);
        int scanned = 0;
        for (int round = 0; round < 300; ++round) {
            const bool plain = round % 4 != 3;  // ASCII names without escapes
            const auto l = randomPage(rng, round, plain ? kPlainNames : kAnyNames, 5);
            const auto text = dumpObjectList(l);
            const auto indented = nlohmann::json::parse(text).dump(2);
            for (const auto& t : {text, indented}) {
                ObjectList fast;
                if (detail::scanObjectList(t, fast)) ++scanned;
                else QVERIFY2(!plain, t.c_str());  // every plain page takes the fast path
                auto got = parseObjectList(t);
                auto withUnknown = t;
                withUnknown.insert(withUnknown.rfind('}'), ",\"zz_unknown\":[1,{\"a\":null}]");
                ObjectList ignored;
                QVERIFY(!detail::scanObjectList(withUnknown, ignored));
                auto full = parseObjectList(withUnknown);
                QVERIFY2(got.ok() && full.ok(), t.c_str());
                QCOMPARE(got->continuationToken, full->continuationToken);
                QCOMPARE(got->uuid, full->uuid);
                QCOMPARE(got->flags, full->flags);
                QVERIFY2(got->entries == full->entries, t.c_str());
                if (plain) QVERIFY2(got->entries == l.entries, t.c_str());
            }
        }
        QVERIFY(scanned >= 2 * 225);  // the plain rounds, both layouts
    }

    // The proxy's pass-through scan (object_list_raw.h) takes a page only
    // in the writer's exact form: random pages as written are taken when no
    // name holds a character JSON escapes (UTF-8 is taken; a byte that is
    // not UTF-8 was written as U+FFFD) and no entry has a stamp, and then
    // their entries' names, flags and bytes are found and the text is what
    // the decode-and-write path writes; a re-indented page is never taken.
    void rawScanTakesTheWritersExactForm()
    {
        std::mt19937 rng(11);
        int taken = 0;
        int utf8 = 0;
        for (int round = 0; round < 300; ++round) {
            const auto& names = round % 4 == 3 ? kAnyNames : round % 4 == 2 ? kUtf8Names : kPlainNames;
            const auto l = randomPage(rng, round, names, round % 5 == 4 ? 5 : 0);
            const bool stamped = std::any_of(l.entries.begin(), l.entries.end(), [](auto& e) { return e.stamp > 0; });
            const auto text = dumpObjectList(l);
            bool unescaped = true;
            for (const auto& e : l.entries) {
                unescaped = unescaped && std::all_of(e.name.begin(), e.name.end(), [](char c) {
                                return static_cast<unsigned char>(c) >= 0x20 && c != '"' && c != '\\';
                            });
            }
            RawObjectList raw;
            raw.body = text;
            const bool ok = scanRawObjectList(raw);
            QCOMPARE(ok, unescaped && !stamped);
            QCOMPARE(raw.body, text);  // left as it was either way
            if (!ok) continue;
            ++taken;
            const auto page = parseObjectList(text);  // what the decoding path reads
            QVERIFY(page.ok());
            QCOMPARE(raw.continuationToken(), std::string_view(page->continuationToken));
            QCOMPARE(raw.entries.size(), page->entries.size());
            std::string joined;
            for (std::size_t i = 0; i < page->entries.size(); ++i) {
                QCOMPARE(raw.name(raw.entries[i]), std::string_view(page->entries[i].name));
                QCOMPARE(raw.entries[i].flags, page->entries[i].flags);
                joined += (i ? "," : "") + std::string(raw.text(raw.entries[i]));
            }
            utf8 += text.find('\xef') != std::string::npos || text.find('\xc3') != std::string::npos;
            QVERIFY(text.find("\"entries\":[" + joined + "]") != std::string::npos);
            QCOMPARE(dumpObjectList(*page), text);
            RawObjectList indented;
            indented.body = nlohmann::json::parse(text).dump(2);
            QVERIFY(!scanRawObjectList(indented));
        }
        QVERIFY(taken >= 150);
        QVERIFY(utf8 >= 5);  // pages with UTF-8 names (and U+FFFD) were taken
    }

    // Names in UTF-8 of two, three and four bytes are taken as they are.
    void rawScanTakesUtf8()
    {
        ObjectList l;
        for (const char* n : {"img/\xc3\xa9t\xc3\xa9.png", "\xe2\x82\xac", "\xf0\x9d\x84\x9e-clef", "plain\x7f"}) {
            ObjEntry e;
            e.name = n;
            e.size = 1;
            e.flags = kEntryIsCached;
            l.entries.push_back(e);
        }
        RawObjectList raw;
        raw.body = dumpObjectList(l);
        QVERIFY(scanRawObjectList(raw));
        QCOMPARE(raw.entries.size(), std::size_t{4});
        for (std::size_t i = 0; i < 4; ++i) QCOMPARE(raw.name(raw.entries[i]), std::string_view(l.entries[i].name));
    }

    void rawScanRefusesOtherForms_data()
    {
        // Bytes, not QString: a QString would turn bytes that are not UTF-8
        // into U+FFFD.
        QTest::addColumn<QByteArray>("page");
        const auto page = [](const char* entry) {
            return QByteArray(R"({"continuation_token":"","entries":[)") + entry + R"(],"flags":0,"uuid":"u"})";
        };
        QTest::newRow("zero flags") << page(R"({"flags":0,"name":"a"})");
        QTest::newRow("zero copies") << page(R"({"copies":0,"name":"a"})");
        QTest::newRow("empty checksum") << page(R"({"checksum":"","name":"a"})");
        QTest::newRow("size as a number") << page(R"({"name":"a","size":5})");
        QTest::newRow("size with a leading zero") << page(R"({"name":"a","size":"05"})");
        QTest::newRow("negative size") << page(R"({"name":"a","size":"-1"})");
        QTest::newRow("keys out of order") << page(R"({"name":"a","flags":64})");
        QTest::newRow("a key twice") << page(R"({"name":"a","name":"b"})");
        QTest::newRow("unknown key") << page(R"({"name":"a","zz":"b"})");
        QTest::newRow("stamp") << page(R"({"name":"a","stamp":5})");
        QTest::newRow("no name") << page(R"({"size":"1"})");
        QTest::newRow("escape in a name") << page("{\"name\":\"a\\\"b\"}");
        QTest::newRow("not UTF-8") << page("{\"name\":\"\xc3\x28\"}");
        QTest::newRow("overlong UTF-8") << page("{\"name\":\"\xc0\xaf\"}");
        QTest::newRow("a surrogate") << page("{\"name\":\"\xed\xa0\x80\"}");
        QTest::newRow("above U+10FFFF") << page("{\"name\":\"\xf4\x90\x80\x80\"}");
        QTest::newRow("a sequence cut by the quote") << page("{\"name\":\"a\xe2\x82\"}");
        QTest::newRow("blank") << page(R"({"name": "a"})");
        QTest::newRow("flags too large") << page(R"({"flags":4294967296,"name":"a"})");
        QTest::newRow("trailing blank") << page(R"({"name":"a"})") + " ";
        QTest::newRow("page keys out of order")
            << QByteArray(R"({"entries":[],"continuation_token":"","flags":0,"uuid":"u"})");
        QTest::newRow("no uuid") << QByteArray(R"({"continuation_token":"","entries":[],"flags":0})");
        QTest::newRow("truncated") << page(R"({"name":"a"})").chopped(3);
    }

    void rawScanRefusesOtherForms()
    {
        QFETCH(QByteArray, page);
        RawObjectList raw;
        raw.body = page.toStdString();
        QVERIFY2(!scanRawObjectList(raw), raw.body.c_str());
        // The control: the writer's form of the same one-entry page is taken.
        RawObjectList good;
        good.body = R"({"continuation_token":"","entries":[{"flags":64,"name":"a","size":"5"}],"flags":0,"uuid":"u"})";
        QVERIFY(scanRawObjectList(good));
        QCOMPARE(good.entries.size(), std::size_t{1});
        QCOMPARE(good.entries[0].flags, 64u);
    }

    void skipsUnknownFieldsAndReadsAbsentOnes()
    {
        const auto text = R"({"uuid":null,"continuation_token":"t","extra":{"a":[1,{"b":2}]},"more":[[],{}],
            "entries":[{"name":"x","custom":{"k":"v"},"list":[1,2]},{"size":3,"name":"y","flags":128}]})";
        auto l = parseObjectList(text);
        QVERIFY2(l.ok(), l.ok() ? "" : l.error().message.c_str());
        QCOMPARE(l->continuationToken, std::string("t"));
        QCOMPARE(l->entries.size(), std::size_t{2});
        QCOMPARE(l->entries[0].name, std::string("x"));
        QCOMPARE(l->entries[0].size, std::int64_t{-1});
        QCOMPARE(l->entries[1].size, std::int64_t{3});
        QCOMPARE(l->entries[1].flags, kEntryInArch);
        auto nullEntries = parseObjectList(R"({"continuation_token":"","entries":null})");
        QVERIFY(nullEntries.ok());
        QVERIFY(nullEntries->entries.empty());
    }

    // AIStore's shapes (cmn/objlist.go): size a decimal string in JSON,
    // custom-md, location, copies; msgpack with Go's field names and msgp's
    // short keys, the same content.
    void aistoreShapes()
    {
        const auto l = sample();
        const auto j = nlohmann::json::parse(dumpObjectList(l));
        QVERIFY(j["entries"][0]["size"] == nlohmann::json("1024"));
        QVERIFY(j["entries"][0]["custom-md"] == nlohmann::json("[k:v w:x]"));
        QVERIFY(j["entries"][0]["location"] == nlohmann::json("t[t1]:/data/mp1"));
        QVERIFY(j["entries"][0]["copies"] == nlohmann::json(2));
        QVERIFY(j["entries"][0]["flags"] == nlohmann::json(64));
        QVERIFY(!j["entries"][2].contains("size"));  // not asked for

        const auto bytes = dumpObjectListMsgpack(l);
        const auto m = nlohmann::json::from_msgpack(bytes);
        QCOMPARE(m.size(), std::size_t{4});
        QVERIFY(m["UUID"] == nlohmann::json("u-1"));
        QVERIFY(m["ContinuationToken"] == nlohmann::json("dir/obj-0042"));
        QVERIFY(m["Flags"] == nlohmann::json(8));
        QVERIFY(m["Entries"][0] == (nlohmann::json{{"n", "dir/obj-0001"},
                                                   {"s", 1024},
                                                   {"cs", "0123456789abcdef"},
                                                   {"a", "2026-11-23T01:02:03.000000004Z"},
                                                   {"v", "3"},
                                                   {"t", "t[t1]:/data/mp1"},
                                                   {"m", "[k:v w:x]"},
                                                   {"c", 2},
                                                   {"f", 64}}));
        QVERIFY(m["Entries"][1] == (nlohmann::json{{"n", "s/shard.tar"}, {"f", kEntryIsArchive}}));  // size 0: left out

        auto back = parseObjectListMsgpack(bytes);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        auto want = l;
        for (auto& e : want.entries) e.size = std::max<std::int64_t>(e.size, 0);  // msgpack: absent is 0
        want.entries[3].error.clear();                                            // Tessera's own field is JSON only
        want.entries[4].stamp = 0;  // so is the stamp (never sent to a client)
        QCOMPARE(back->entries.size(), want.entries.size());
        for (std::size_t i = 0; i < want.entries.size() - 1; ++i) QVERIFY(back->entries[i] == want.entries[i]);
        QCOMPARE(back->continuationToken, l.continuationToken);

        QCOMPARE(parseObjectListMsgpack("").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseObjectListMsgpack(dumpObjectListMsgpack(l) + "x").kind(), ErrorKind::BadRequest);
        auto unknown = m;
        unknown["Entries"][0]["zz"] = 1;
        const auto u = nlohmann::json::to_msgpack(unknown);
        QCOMPARE(parseObjectListMsgpack(std::string(u.begin(), u.end())).error().message,
                 std::string("invalid msgpack object list: unknown entry key \"zz\""));
        auto noToken = m;
        noToken.erase("ContinuationToken");
        const auto t = nlohmann::json::to_msgpack(noToken);
        QCOMPARE(parseObjectListMsgpack(std::string(t.begin(), t.end())).kind(), ErrorKind::BadRequest);
    }

    void listRequestForms()
    {
        // props "" is AIStore's name,size; every GetProps* name is accepted.
        QCOMPARE(parseListProps("").value(), std::uint32_t{kPropName | kPropSize});
        QCOMPARE(parseListProps("custom,location,copies").value(),
                 std::uint32_t{kPropName | kPropCustom | kPropLocation | kPropCopies});
        QVERIFY(parseListProps("name,size,checksum,atime,version,cached,status,copies,ec,custom,location,chunked,"
                               "last-modified,etag")
                    .ok());
        QCOMPARE(parseListProps("colour").kind(), ErrorKind::BadRequest);
        // LsNameOnly: names only, whatever props says.
        auto r = listRequestFromJson(R"({"action":"list","value":{"props":"name,size","flags":"16"}})");
        QVERIFY(r.ok());
        QCOMPARE(r->props, std::uint32_t{kPropName});
        // start_after becomes the first page's token; target and time_format travel.
        r = listRequestFromJson(
            R"({"action":"list","value":{"start_after":"b","target":"t1","time_format":"2006-01-02","flags":"0"}})");
        QVERIFY(r.ok());
        QCOMPARE(r->continuationToken, std::string("b"));
        auto back = listRequestFromQuery(listRequestToQuery(*r));
        QVERIFY(back.ok());
        QCOMPARE(back->target, std::string("t1"));
        QCOMPARE(back->timeFormat, std::string("2006-01-02"));
        QCOMPARE(back->continuationToken, std::string("b"));
        QCOMPARE(listRequestFromJson(R"({"time_format":5})").kind(), ErrorKind::BadRequest);
    }

    void goTimeLayouts_data()
    {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<QString>("text");
        // 2026-11-23 01:02:03.000000004 UTC, a Monday, day 327 of the year.
        QTest::newRow("default is RFC822") << ""
                                           << "23 Nov 26 01:02 UTC";
        QTest::newRow("RFC3339Nano") << "2006-01-02T15:04:05.999999999Z07:00"
                                     << "2026-11-23T01:02:03.000000004Z";
        QTest::newRow("RFC3339") << "2006-01-02T15:04:05Z07:00"
                                 << "2026-11-23T01:02:03Z";
        QTest::newRow("RFC1123") << "Mon, 02 Jan 2006 15:04:05 MST"
                                 << "Mon, 23 Nov 2026 01:02:03 UTC";
        QTest::newRow("DateTime") << "2006-01-02 15:04:05"
                                  << "2026-11-23 01:02:03";
        QTest::newRow("fixed fraction") << "15:04:05.000000"
                                        << "01:02:03.000000";
        QTest::newRow("trimmed fraction") << "05.999"
                                          << "03";
        QTest::newRow("kitchen") << "3:04PM"
                                 << "1:02AM";
        QTest::newRow("long names") << "Monday January _2 __2 002"
                                    << "Monday November 23 327 327";
        QTest::newRow("numeric zone") << "-0700 -07:00"
                                      << "+0000 +00:00";
        QTest::newRow("literal text") << "at 15h"
                                      << "at 01h";
    }

    void goTimeLayouts()
    {
        QFETCH(QString, layout);
        QFETCH(QString, text);
        const std::int64_t ns = 1795395723000000004;  // 2026-11-23T01:02:03.000000004Z
        QCOMPARE(QString::fromStdString(formatGoTime(ns, layout.toStdString())), text);
    }

    // The HTTP date written directly (every GET's Last-Modified) says what
    // the Go layout does, across the calendar: leap days, centuries, before
    // 1970, fractions of a second, the whole range of nanoseconds in 64 bits
    // (1677 to 2262).
    void httpDateAgreesWithTheLayout()
    {
        const std::string_view layout = "Mon, 02 Jan 2006 15:04:05 GMT";
        QCOMPARE(QString::fromStdString(formatHttpDate(1795395723000000004)), QString("Mon, 23 Nov 2026 01:02:03 GMT"));
        QCOMPARE(QString::fromStdString(formatHttpDate(0)), QString("Thu, 01 Jan 1970 00:00:00 GMT"));
        QCOMPARE(QString::fromStdString(formatHttpDate(951782400LL * 1000000000)),
                 QString("Tue, 29 Feb 2000 00:00:00 GMT"));
        QCOMPARE(QString::fromStdString(formatHttpDate(-1)), QString("Wed, 31 Dec 1969 23:59:59 GMT"));
        std::mt19937_64 rng(23);
        std::uniform_int_distribution<std::int64_t> secs(-9223372035LL, 9223372035LL);
        std::uniform_int_distribution<std::int64_t> frac(0, 999999999);
        for (const std::int64_t edge :
             {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
            QCOMPARE(QString::fromStdString(formatHttpDate(edge)), QString::fromStdString(formatGoTime(edge, layout)));
        }
        for (int i = 0; i < 200000; ++i) {
            const std::int64_t ns = secs(rng) * 1000000000 + (i % 2 == 0 ? frac(rng) : 0);
            const auto want = formatGoTime(ns, layout);
            const auto got = formatHttpDate(ns);
            if (got != want)
                QFAIL(qPrintable(QString("at %1 ns: %2, the layout says %3").arg(ns).arg(got.c_str(), want.c_str())));
        }
    }

    void refusesBadPages_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("garbage") << "{\"continuation_token\":"
                                 << "malformed JSON in object list";
        QTest::newRow("trailing") << "{\"continuation_token\":\"\"} x"
                                  << "malformed JSON in object list";
        QTest::newRow("array") << "[]"
                               << "invalid object list: not an object";
        QTest::newRow("scalar") << "\"x\""
                                << "invalid object list: not an object";
        QTest::newRow("no token") << "{\"entries\":[]}"
                                  << "invalid object list: \"continuation_token\" is missing";
        QTest::newRow("token type") << "{\"continuation_token\":5}"
                                    << "invalid object list: \"continuation_token\" must be a string";
        QTest::newRow("entries type") << "{\"continuation_token\":\"\",\"entries\":{}}"
                                      << "invalid object list: \"entries\" must be an array";
        QTest::newRow("entry scalar") << "{\"continuation_token\":\"\",\"entries\":[1]}"
                                      << "invalid object list: an entry must be an object";
        QTest::newRow("entry array") << "{\"continuation_token\":\"\",\"entries\":[[]]}"
                                     << "invalid object list: an entry must be an object";
        QTest::newRow("no name") << "{\"continuation_token\":\"\",\"entries\":[{\"size\":1}]}"
                                 << "invalid object list: an entry has no \"name\"";
        QTest::newRow("name type") << "{\"continuation_token\":\"\",\"entries\":[{\"name\":1}]}"
                                   << "invalid object list: an entry's \"name\" must be a string";
        QTest::newRow("size type") << "{\"continuation_token\":\"\",\"entries\":[{\"name\":\"a\",\"size\":true}]}"
                                   << "invalid object list: an entry's \"size\" must be a decimal string";
        QTest::newRow("size negative") << "{\"continuation_token\":\"\",\"entries\":[{\"name\":\"a\",\"size\":-10240}]}"
                                       << "invalid object list: an entry's \"size\" must be a decimal string";
        QTest::newRow("size text") << "{\"continuation_token\":\"\",\"entries\":[{\"name\":\"a\",\"size\":\"1k\"}]}"
                                   << "invalid object list: an entry's \"size\" must be a decimal string";
        QTest::newRow("copies type") << "{\"continuation_token\":\"\",\"entries\":[{\"name\":\"a\",\"copies\":\"1\"}]}"
                                     << "invalid object list: an entry's \"copies\" must be an integer 0..32767";
        QTest::newRow("negative stamp") << "{\"continuation_token\":\"\",\"entries\":[{\"name\":\"a\",\"stamp\":-2}]}"
                                        << "invalid object list: an entry's \"stamp\" must be an integer 0..2^63-1";
        QTest::newRow("flags type") << "{\"continuation_token\":\"\",\"entries\":[{\"name\":\"a\",\"flags\":-1}]}"
                                    << "invalid object list: an entry's \"flags\" must be an unsigned integer";
    }

    void refusesBadPages()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        auto l = parseObjectList(text.toStdString());
        QVERIFY(!l.ok());
        QCOMPARE(l.kind(), ErrorKind::BadRequest);
        QCOMPARE(QString::fromStdString(l.error().message), message);
    }
};

QTEST_APPLESS_MAIN(TestObjectListCodec)
#include "test_object_list_codec.moc"
