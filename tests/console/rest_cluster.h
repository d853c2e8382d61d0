#pragma once
// The cluster the bucket-side console tests run against: real tessera-node
// processes (one mountpath per target) and a RestClient pointed at the
// proxy, as the Buckets page uses it.

#include "core/rest_client.h"
#include "local_cluster.h"

#include <QNetworkAccessManager>
#include <QString>
#include <QUrl>
#include <memory>

namespace tessera::console::test {

// Starts `targets` targets and points `rest` at the proxy. False when the
// cluster did not start (`cluster->error()` says why).
inline bool startRestCluster(QNetworkAccessManager& network, int targets, std::unique_ptr<tests::LocalCluster>& cluster,
                             std::unique_ptr<RestClient>& rest)
{
    tests::LocalCluster::Options options;
    options.targets = targets;
    options.mountpaths = 1;
    cluster = std::make_unique<tests::LocalCluster>(options);
    if (!cluster->start()) return false;
    rest = std::make_unique<RestClient>(&network);
    rest->setEndpoint(QUrl(QString::fromStdString(cluster->proxyUrl())));
    return true;
}

}  // namespace tessera::console::test
