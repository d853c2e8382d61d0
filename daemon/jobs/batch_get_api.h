#pragma once
// The target's side of POST /v1/internal/batch-get (api/batch_get.h has
// the request and the record format).
//
// Thread safety: the handler runs on worker threads; the store is thread-safe.

#include "api/batch_get.h"
#include "net/router.h"
#include "target/object_store.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::daemon::jobs {

class BatchGetApi {
public:
    explicit BatchGetApi(const target::ObjectStore& store) : m_store(store) {}
    void registerRoutes(net::Router& router);

private:
    net::Response batchGet(const net::Request& req);
    const target::ObjectStore& m_store;
};

}  // namespace tessera::daemon::jobs
