// The S3 keys file: a good one maps each access key to its secret and user;
// each kind of bad entry is a BadRequest naming it.
#include "s3/s3_keys.h"

#include <QTest>

using namespace tessera;
using namespace tessera::daemon::s3;

class TestS3Keys : public QObject {
    Q_OBJECT

private slots:
    void parses()
    {
        auto k = parseS3Keys(R"({"keys":[{"access_key":"AKIDALICE","secret_key":"alice-secret","user":"alice"},
                                         {"access_key":"AKIDBOB","secret_key":"bob-secret-1","user":"bob"}]})");
        QVERIFY(k);
        QCOMPARE(k->size(), std::size_t{2});
        QCOMPARE(k->at("AKIDALICE").secret, std::string("alice-secret"));
        QCOMPARE(k->at("AKIDBOB").user, std::string("bob"));
    }

    void refuses_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("error");
        QTest::newRow("not json") << "{"
                                  << "expected {\"keys\"";
        QTest::newRow("no keys") << "{}"
                                 << "expected {\"keys\"";
        QTest::newRow("short key") << R"({"keys":[{"access_key":"A","secret_key":"12345678","user":"u"}]})"
                                   << "/keys/0/access_key";
        QTest::newRow("odd key") << R"({"keys":[{"access_key":"AK-ID","secret_key":"12345678","user":"u"}]})"
                                 << "/keys/0/access_key";
        QTest::newRow("short secret") << R"({"keys":[{"access_key":"AKID","secret_key":"1234","user":"u"}]})"
                                      << "/keys/0/secret_key";
        QTest::newRow("no user") << R"({"keys":[{"access_key":"AKID","secret_key":"12345678"}]})"
                                 << "/keys/0/user";
        QTest::newRow("twice") << R"({"keys":[{"access_key":"AKID","secret_key":"12345678","user":"u"},
                                              {"access_key":"AKID","secret_key":"87654321","user":"v"}]})"
                               << "appears twice";
    }
    void refuses()
    {
        QFETCH(QString, json);
        QFETCH(QString, error);
        auto k = parseS3Keys(json.toStdString());
        QVERIFY(!k);
        QCOMPARE(k.kind(), api::ErrorKind::BadRequest);
        QVERIFY2(QString::fromStdString(k.error().message).contains(error), k.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestS3Keys)
#include "test_s3_keys.moc"
