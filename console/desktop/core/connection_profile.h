#pragma once

#include "api/result.h"
#include "core/tls_settings.h"

#include <QString>
#include <QUrl>

namespace tessera::console {

// A saved way to reach a cluster: a name for people, the proxy's URL, an
// optional bearer token sent with every request, and how an https://
// endpoint's certificate is checked.
struct ConnectionProfile {
    QString name;
    QUrl endpoint;
    QString token;
    TlsSettings tls = {};  // "= {}": a profile written {name, endpoint, token} may leave it out

    bool operator==(const ConnectionProfile&) const = default;
};

inline constexpr int kProfileNameMax = 100;
inline constexpr int kProfileTokenMax = 4096;

// BadRequest unless the name is 1..kProfileNameMax characters, the endpoint an
// http(s) URL with a host, and the token at most kProfileTokenMax characters.
api::Status validateProfile(const ConnectionProfile& profile);

// "http://127.0.0.1:8080" from "127.0.0.1:8080" or "http://127.0.0.1:8080/";
// an invalid QUrl when `text` is no http(s) URL.
QUrl normalizeEndpoint(const QString& text);

}  // namespace tessera::console
