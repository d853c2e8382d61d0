#pragma once
// RestClient's private parts, shared by its .cpp files (rest_client.cpp: the
// exchange itself, buckets, objects and auth; rest_client_jobs.cpp: jobs,
// dSort, ishard and ETL): the request and answer it passes around, and the
// helpers both use. Not for anything outside RestClient.

#include "rest_client.h"

#include "api/http_error.h"
#include "api/paths.h"

#include <QNetworkReply>
#include <QPointer>
#include <QSaveFile>
#include <functional>
#include <memory>

namespace tessera::console {

namespace rest_detail {

// An answer body kept in memory (listings, errors, previews) is bounded; a
// download streams to its file instead.
inline constexpr qint64 kMaxBufferedBody = 64LL * 1024 * 1024;

inline QByteArray encodeQuery(const QList<std::pair<QByteArray, QString>>& query)
{
    QByteArray out;
    for (const auto& [key, value] : query) {
        out += out.isEmpty() ? "?" : "&";
        out += key + '=' + QUrl::toPercentEncoding(value);
    }
    return out;
}

inline QByteArray objectPath(const QString& bucket, const QString& name)
{
    return QByteArray::fromStdString(api::path::object(bucket.toStdString(), name.toStdString()));
}

inline bool isRedirect(int status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

inline std::string_view bodyView(const QByteArray& b) { return {b.constData(), static_cast<std::size_t>(b.size())}; }

}  // namespace rest_detail

struct RestCall::State {
    QPointer<QNetworkReply> reply;
    bool aborted = false;
    bool finished = false;
};

struct RestClient::Response {
    int status = 0;
    QByteArray body;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QString errorString;
    bool aborted = false;
    bool tooLarge = false;
    QList<QNetworkReply::RawHeaderPair> headers;

    QByteArray header(const QByteArray& name) const
    {
        for (const auto& [k, v] : headers) {
            if (k.compare(name, Qt::CaseInsensitive) == 0) return v;
        }
        return {};
    }

    // The error of a failed exchange; ok for a 2xx answer.
    api::Status status2xx() const
    {
        if (aborted) return api::Error::unavailable("aborted");
        if (tooLarge) return api::Error{api::ErrorKind::TooLarge, "answer larger than the console reads", {}};
        if (status == 0) {
            if (error == QNetworkReply::TimeoutError || error == QNetworkReply::OperationCanceledError) {
                return api::Error::timeout("no answer: " + errorString.toStdString());
            }
            return api::Error::unavailable(errorString.toStdString());
        }
        if (status < 200 || status >= 300) {
            return api::errorFromResponse(status, std::string_view(body.constData(), body.size()));
        }
        // A 2xx whose body did not arrive whole.
        if (error == QNetworkReply::TimeoutError || error == QNetworkReply::OperationCanceledError) {
            return api::Error::timeout("answer incomplete: " + errorString.toStdString());
        }
        if (error != QNetworkReply::NoError) return api::Error::unavailable(errorString.toStdString());
        return {};
    }

    ObjectInfo objectInfo() const
    {
        return api::attrsFromHeaders([this](std::string_view name) {
            return header(QByteArray(name.data(), static_cast<qsizetype>(name.size()))).toStdString();
        });
    }
};

struct RestClient::Request {
    QByteArray method;
    QUrl url;
    QList<std::pair<QByteArray, QByteArray>> headers;
    bool hasBody = false;
    PutBody body;
    qint64 maxBody = rest_detail::kMaxBufferedBody;
    std::shared_ptr<QSaveFile> sink;  // download: 2xx bytes go here
    QPointer<QObject> context;
    bool hasContext = false;
    int redirectsLeft = kMaxRedirects;
    bool reportUnauthorized = true;  // a 401 emits RestClient::unauthorized (not for the token calls)
    QString sentToken;               // the bearer token of the last send
    int timeoutMs = 0;               // no byte moved for this long: Timeout (0: the client's transfer timeout)
    // A large body is not sent to a node that would answer 307 without
    // reading it: a body-less HEAD finds the owner first.
    bool resolveFirst = false;
    ProgressCallback uploadProgress;
    ProgressCallback downloadProgress;
    std::function<void(Response)> done;

    void addHeader(const QByteArray& name, const QByteArray& value) { headers.append({name, value}); }
};

template <typename T>
RestCall RestClient::getParsed(const QUrl& url, QObject* context, Callback<T> done,
                               std::function<api::Result<T>(std::string_view)> parse)
{
    auto req = newRequest("GET", url, context);
    req->timeoutMs = m_controlTimeoutMs;
    req->done = [done = std::move(done), parse = std::move(parse)](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(parse(std::string_view(r.body.constData(), static_cast<std::size_t>(r.body.size()))));
    };
    return start(req);
}

}  // namespace tessera::console
