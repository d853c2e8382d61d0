#include "batch_get_api.h"

#include "api/checksum.h"
#include "api/json_shape.h"

#include "api/names.h"
#include "common/fd_io.h"

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace tessera::daemon::jobs {

namespace http = boost::beast::http;

using api::BatchGet;

namespace {

void record(std::string& out, BatchGet::Status st, std::string_view name, std::string_view data, std::uint64_t length)
{
    BatchGet::appendRecord(out, st, name, data, length);
}

}  // namespace

void BatchGetApi::registerRoutes(net::Router& router)
{
    router.add(net::Route{http::verb::post,
                          BatchGet::kPath,
                          net::Exec::Worker,
                          [this](const net::Request& r) { return batchGet(r); },
                          {},
                          std::size_t{4} << 20});
}

net::Response BatchGetApi::batchGet(const net::Request& req)
{
    if (auto st = api::checkJsonShape(req.body, {api::JsonShape::Top::Object, 2, 2048}, "batch-get"); !st) {
        return net::Response::error(st.error());
    }
    auto msg = api::parseMessage<api::BatchGetRequest>(req.body, "batch-get");
    if (!msg) return net::Response::error(msg.error());
    const auto& bucket = msg->bucket;
    std::string out;
    for (const auto& name : msg->names) {
        if (out.size() >= BatchGet::kMaxAnswerBytes) {
            record(out, BatchGet::kNotSent, name, {}, 0);
            continue;
        }
        auto obj = m_store.openUncached(bucket, name);
        if (!obj) {
            if (obj.kind() == api::ErrorKind::NotFound) record(out, BatchGet::kNotFound, name, {}, 0);
            else record(out, BatchGet::kError, name, obj.error().message, obj.error().message.size());
            continue;
        }
        const auto size = static_cast<std::uint64_t>(obj->meta.size);
        if (size > BatchGet::kMaxObjectBytes) {
            record(out, BatchGet::kTooLarge, name, {}, size);
            continue;
        }
        // The record's head, then the bytes read straight in behind it; the
        // record is taken back if they cannot be read or checked.
        const auto recordAt = out.size();
        record(out, BatchGet::kOk, name, {}, size);
        const auto dataAt = out.size();
        out.resize(dataAt + size);
        if (const int err = preadExact(obj->fd->get(), out.data() + dataAt, size, 0); err != 0) {
            out.resize(recordAt);
            const std::string why = errnoError(err, "cannot read " + bucket + "/" + name).message;
            record(out, BatchGet::kError, name, why, why.size());
            continue;
        }
        // Bytes leave this target only if they are the bytes that were
        // stored: a peer would otherwise build them into a new object
        // under a fresh, valid checksum.
        const std::string_view data(out.data() + dataAt, size);
        if (!obj->meta.checksumValue.empty()) {
            if (const auto got = api::xxhash64Hex(data); got != obj->meta.checksumValue) {
                out.resize(recordAt);
                const std::string why = "object " + bucket + "/" + name + " is corrupted: stored checksum " +
                                        obj->meta.checksumValue + ", its bytes hash to " + got;
                record(out, BatchGet::kCorrupt, name, why, why.size());
                continue;
            }
        }
    }
    net::Response r;
    r.body = std::move(out);
    r.header("Content-Type", "application/octet-stream");
    return r;
}

}  // namespace tessera::daemon::jobs
