// The listing page's own codec: dumpObjectList writes exactly what
// dumpJson(json(list)) writes, parseObjectList reads back exactly what was
// written, and malformed or mistyped pages are BadRequest with a reason.
#include "api/json_util.h"
#include "api/object_list.h"

#include <QTest>

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
    ObjEntry unicode;
    unicode.name = "img/\xc3\xa9t\xc3\xa9-\xe2\x82\xac.png";  // "été-€.png"
    unicode.size = 5;
    ObjEntry invalid;
    invalid.name = std::string("bytes-\xff\xfe-end");  // not UTF-8: replaced like dumpJson does
    invalid.size = 1;
    l.entries = {a, shard, member, broken, unicode, invalid};
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
        QTest::newRow("size type") << "{\"continuation_token\":\"\",\"entries\":[{\"name\":\"a\",\"size\":\"1\"}]}"
                                   << "invalid object list: an entry's \"size\" must be an integer";
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
