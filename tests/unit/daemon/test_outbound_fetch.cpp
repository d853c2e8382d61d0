// The guard on fetches of user-given URLs (daemon/net/outbound_fetch.h):
// which addresses are refused and why, networks that allow them again, and
// fetchUserUrl refusing before it connects.
#include "net/outbound_fetch.h"

#include <QTest>

using namespace tessera;
using daemon::net::IpNetwork;
namespace asio = boost::asio;

class TestOutboundFetch : public QObject {
    Q_OBJECT

private:
    static std::string rangeOf(const char* a, const std::vector<IpNetwork>& allowed = {})
    {
        return daemon::net::forbiddenRange(asio::ip::make_address(a), allowed);
    }

private slots:
    void forbiddenRanges_data()
    {
        QTest::addColumn<QString>("address");
        QTest::addColumn<QString>("range");
        QTest::newRow("loopback") << "127.0.0.1"
                                  << "loopback";
        QTest::newRow("loopback /8") << "127.255.0.9"
                                     << "loopback";
        QTest::newRow("metadata") << "169.254.169.254"
                                  << "link-local (cloud metadata)";
        QTest::newRow("10/8") << "10.200.1.1"
                              << "private";
        QTest::newRow("172.16/12") << "172.31.255.255"
                                   << "private";
        QTest::newRow("172.32 is public") << "172.32.0.1"
                                          << "";
        QTest::newRow("192.168/16") << "192.168.1.1"
                                    << "private";
        QTest::newRow("cgnat") << "100.64.0.1"
                               << "carrier-grade NAT";
        QTest::newRow("this network") << "0.0.0.0"
                                      << "\"this network\"";
        QTest::newRow("multicast") << "239.1.1.1"
                                   << "multicast";
        QTest::newRow("broadcast") << "255.255.255.255"
                                   << "reserved";
        QTest::newRow("public v4") << "93.184.216.34"
                                   << "";
        QTest::newRow("v6 loopback") << "::1"
                                     << "loopback";
        QTest::newRow("v6 unspecified") << "::"
                                        << "unspecified";
        QTest::newRow("v6 link-local") << "fe80::1"
                                       << "link-local";
        QTest::newRow("v6 ula") << "fd00::1"
                                << "unique local (private)";
        QTest::newRow("v4-mapped loopback") << "::ffff:127.0.0.1"
                                            << "loopback";
        QTest::newRow("v4-mapped metadata") << "::ffff:169.254.169.254"
                                            << "link-local (cloud metadata)";
        QTest::newRow("nat64") << "64:ff9b::a9fe:a9fe"
                               << "NAT64";
        QTest::newRow("public v6") << "2606:4700::1111"
                                   << "";
    }
    void forbiddenRanges()
    {
        QFETCH(QString, address);
        QFETCH(QString, range);
        QCOMPARE(QString::fromStdString(rangeOf(address.toLatin1().constData())), range);
    }

    void allowedNetworksOpenARange()
    {
        const std::vector<IpNetwork> allowed{IpNetwork::parse("10.1.0.0/16").value(),
                                             IpNetwork::parse("127.0.0.2").value(),
                                             IpNetwork::parse("fd00::/8").value()};
        QCOMPARE(rangeOf("10.1.200.3", allowed), std::string());
        QCOMPARE(rangeOf("10.2.0.1", allowed), std::string("private"));
        QCOMPARE(rangeOf("127.0.0.2", allowed), std::string());
        QCOMPARE(rangeOf("::ffff:127.0.0.2", allowed), std::string());  // mapped: judged as IPv4
        QCOMPARE(rangeOf("127.0.0.1", allowed), std::string("loopback"));
        QCOMPARE(rangeOf("fd12::1", allowed), std::string());
        QCOMPARE(rangeOf("fe80::1", allowed), std::string("link-local"));
    }

    void networksParse()
    {
        QCOMPARE(IpNetwork::parse("10.0.0.0/8").value().toString(), std::string("10.0.0.0/8"));
        QCOMPARE(IpNetwork::parse("127.0.0.2").value().prefix, 32u);
        QCOMPARE(IpNetwork::parse("fe80::/10").value().prefix, 10u);
        QCOMPARE(IpNetwork::parse("0.0.0.0/0").value().prefix, 0u);
        for (const char* bad : {"", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/x", "host.example/8", "::/129", "1.2.3/8"}) {
            auto r = IpNetwork::parse(bad);
            QVERIFY2(!r, bad);
            QCOMPARE(r.kind(), api::ErrorKind::BadRequest);
        }
        QVERIFY(IpNetwork::parse("0.0.0.0/0").value().contains(asio::ip::make_address("8.8.8.8")));
        QVERIFY(!IpNetwork::parse("10.0.0.0/8").value().contains(asio::ip::make_address("::1")));
    }

    // Refused at the check: nothing listens on these, so a connection
    // attempt would fail with another message (Unavailable).
    void fetchRefusesBeforeConnecting_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("says");
        QTest::newRow("metadata") << "http://169.254.169.254/latest/meta-data/"
                                  << "link-local";
        QTest::newRow("loopback") << "http://127.0.0.1:1/ekm.json"
                                  << "loopback";
        QTest::newRow("localhost") << "http://localhost:1/ekm.json"
                                   << "loopback";
        QTest::newRow("https private") << "https://192.168.0.1/ekm.json"
                                       << "private";
        QTest::newRow("not a url") << "ftp://example.com/x"
                                   << "ftp://example.com/x";
    }
    void fetchRefusesBeforeConnecting()
    {
        QFETCH(QString, url);
        QFETCH(QString, says);
        daemon::net::OutboundFetchOptions o;
        o.timeout = std::chrono::milliseconds(500);
        auto r = daemon::net::fetchUserUrl(url.toStdString(), o);
        QVERIFY(!r);
        QCOMPARE(r.kind(), api::ErrorKind::BadRequest);
        QVERIFY2(r.error().message.find(says.toStdString()) != std::string::npos, r.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestOutboundFetch)
#include "test_outbound_fetch.moc"
