#include "core/connection_profile.h"

namespace tessera::console {

api::Status validateProfile(const ConnectionProfile& profile)
{
    const QString name = profile.name.trimmed();
    if (name.isEmpty() || name.size() > kProfileNameMax) {
        return api::Error::badRequest("a profile name has 1 to " + std::to_string(kProfileNameMax) + " characters");
    }
    const QUrl& url = profile.endpoint;
    if (!url.isValid() || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")) ||
        url.host().isEmpty()) {
        return api::Error::badRequest("the endpoint must be an http:// or https:// URL with a host, not '" +
                                      url.toString().toStdString() + "'");
    }
    if (profile.token.size() > kProfileTokenMax) {
        return api::Error::badRequest("a token has at most " + std::to_string(kProfileTokenMax) + " characters");
    }
    return {};
}

QUrl normalizeEndpoint(const QString& text)
{
    QString s = text.trimmed();
    if (s.isEmpty()) {
        return {};
    }
    if (!s.contains(QLatin1String("://"))) {
        s.prepend(QLatin1String("http://"));
    }
    QUrl url(s, QUrl::StrictMode);
    if (!url.isValid() || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")) ||
        url.host().isEmpty()) {
        return {};
    }
    url.setPath(QString());
    url.setQuery(QString());
    url.setFragment(QString());
    return url;
}

}  // namespace tessera::console
