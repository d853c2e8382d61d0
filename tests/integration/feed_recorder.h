#pragma once
// A feed client as the console uses it (QWebSocket), recording every message
// of /v1/ws with its arrival time; for tests against a real proxy.

#include <QSslCertificate>
#include <QSslConfiguration>
#include <QTest>
#include <QUrl>
#include <QWebSocket>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tessera::tests {

using json = nlohmann::json;

// The proxy's feed, /v1/ws, as ws:// or (a TLS cluster) wss://.
inline QUrl feedUrl(const std::string& proxyUrl)
{
    QString url = QString::fromStdString(proxyUrl);
    url.replace("https://", "wss://");
    url.replace("http://", "ws://");
    return QUrl(url + "/v1/ws");
}

// Opens `ws` on the proxy's feed, trusting the cluster's CA on a TLS
// cluster (LocalCluster puts it in $TESSERA_CA_FILE).
inline void openFeed(QWebSocket& ws, const std::string& proxyUrl)
{
    const QString ca = qEnvironmentVariable("TESSERA_CA_FILE");
    if (!ca.isEmpty() && proxyUrl.rfind("https://", 0) == 0) {
        QSslConfiguration conf = QSslConfiguration::defaultConfiguration();
        conf.setCaCertificates(QSslCertificate::fromPath(ca));
        ws.setSslConfiguration(conf);
    }
    ws.open(feedUrl(proxyUrl));
}

inline std::int64_t wallMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

class FeedRecorder : public QObject {
public:
    struct Received {
        json msg;
        std::int64_t arrivedMs = 0;
    };

    explicit FeedRecorder(const std::string& proxyUrl, const QString& origin = {}) : m_ws(origin)
    {
        connect(&m_ws, &QWebSocket::textMessageReceived, this, [this](const QString& text) {
            m_messages.push_back({json::parse(text.toStdString(), nullptr, false), wallMs()});
        });
        connect(&m_ws, &QWebSocket::disconnected, this, [this] { m_disconnected = true; });
        openFeed(m_ws, proxyUrl);
    }

    bool waitOpen()
    {
        return QTest::qWaitFor([this] { return m_ws.state() == QAbstractSocket::ConnectedState; }, 5000);
    }
    void send(const std::string& text) { m_ws.sendTextMessage(QString::fromStdString(text)); }
    void sendBinary(const QByteArray& b) { m_ws.sendBinaryMessage(b); }
    bool disconnected() const { return m_disconnected; }
    const std::vector<Received>& messages() const { return m_messages; }

    // Waits for a message of `type` at or after index `from`; returns its index or -1.
    int waitFor(const std::string& type, std::size_t from, int timeoutMs,
                const std::function<bool(const json&)>& pred = {})
    {
        int found = -1;
        (void)QTest::qWaitFor(
            [&] {
                for (std::size_t i = from; i < m_messages.size(); ++i) {
                    const auto& m = m_messages[i].msg;
                    if (m.is_object() && m.value("type", "") == type && (!pred || pred(m))) {
                        found = static_cast<int>(i);
                        return true;
                    }
                }
                return false;
            },
            timeoutMs);
        return found;
    }

private:
    QWebSocket m_ws;
    std::vector<Received> m_messages;
    bool m_disconnected = false;
};

}  // namespace tessera::tests
