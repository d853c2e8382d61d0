#include "batch_get_api.h"

#include "api/checksum.h"
#include "api/json_shape.h"

#include "api/names.h"

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace tessera::daemon::jobs {

namespace http = boost::beast::http;

namespace {

void putLe(std::string& out, std::uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t getLe(std::string_view in, std::size_t at, int bytes)
{
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= std::uint64_t(static_cast<unsigned char>(in[at + i])) << (8 * i);
    return v;
}

void record(std::string& out, BatchGetApi::Status st, std::string_view name, std::string_view data,
            std::uint64_t length)
{
    out.push_back(static_cast<char>(st));
    putLe(out, name.size(), 4);
    out.append(name);
    putLe(out, length, 8);
    out.append(data);
}

}  // namespace

void BatchGetApi::registerRoutes(net::Router& router)
{
    router.add(net::Route{http::verb::post, kPath, net::Exec::Worker, [this](const net::Request& r) { return batchGet(r); },
                          {}, std::size_t{4} << 20});
}

net::Response BatchGetApi::batchGet(const net::Request& req)
{
    if (auto st = api::checkJsonShape(req.body, {api::JsonShape::Top::Object, 2, 2048}, "batch-get"); !st) {
        return net::Response::error(st.error());
    }
    auto j = nlohmann::json::parse(req.body, nullptr, false);
    if (!j.is_object() || !j.contains("bucket") || !j["bucket"].is_string() || !j.contains("names") ||
        !j["names"].is_array()) {
        return net::Response::error(api::Error::badRequest("body must be {\"bucket\":\"B\",\"names\":[...]}"));
    }
    const auto bucket = j["bucket"].get<std::string>();
    if (auto st = api::validateBucketName(bucket); !st) return net::Response::error(st.error());
    if (j["names"].size() > kMaxNames) {
        return net::Response::error(api::Error::badRequest("more than " + std::to_string(kMaxNames) + " names"));
    }
    std::string out;
    for (const auto& n : j["names"]) {
        if (!n.is_string()) return net::Response::error(api::Error::badRequest("names must be strings"));
        const auto name = n.get<std::string>();
        if (auto st = api::validateObjectName(name); !st) return net::Response::error(st.error());
        if (out.size() >= kMaxAnswerBytes) {
            record(out, kNotSent, name, {}, 0);
            continue;
        }
        auto obj = m_store.open(bucket, name);
        if (!obj) {
            if (obj.kind() == api::ErrorKind::NotFound) record(out, kNotFound, name, {}, 0);
            else record(out, kError, name, obj.error().message, obj.error().message.size());
            continue;
        }
        const auto size = static_cast<std::uint64_t>(obj->meta.size);
        if (size > kMaxObjectBytes) {
            record(out, kTooLarge, name, {}, size);
            continue;
        }
        std::string data(size, '\0');
        std::uint64_t got = 0;
        while (got < size) {
            const ssize_t r = ::pread(obj->fd->get(), data.data() + got, size - got, static_cast<off_t>(got));
            if (r <= 0) break;
            got += static_cast<std::uint64_t>(r);
        }
        if (got != size) {
            const std::string msg = "cannot read " + bucket + "/" + name + ": " + (got < size ? "short read" : "");
            record(out, kError, name, msg, msg.size());
            continue;
        }
        // Bytes leave this target only if they are the bytes that were
        // stored: a peer would otherwise build them into a new object
        // under a fresh, valid checksum.
        if (!obj->meta.checksumValue.empty() && api::xxhash64Hex(data) != obj->meta.checksumValue) {
            const std::string msg = "object " + bucket + "/" + name + " is corrupted: stored checksum " +
                                    obj->meta.checksumValue + ", its bytes hash to " + api::xxhash64Hex(data);
            record(out, kCorrupt, name, msg, msg.size());
            continue;
        }
        record(out, kOk, name, data, size);
    }
    net::Response r;
    r.body = std::move(out);
    r.header("Content-Type", "application/octet-stream");
    return r;
}

std::size_t BatchGetApi::parseRecord(std::string_view in, Record& out)
{
    if (in.size() < 5) return 0;
    const auto nameLen = getLe(in, 1, 4);
    if (in.size() < 5 + nameLen + 8) return 0;
    const auto length = getLe(in, 5 + nameLen, 8);
    const auto st = static_cast<Status>(static_cast<unsigned char>(in[0]));
    const std::uint64_t dataLen = (st == kOk || st == kError || st == kCorrupt) ? length : 0;
    const std::size_t total = 5 + nameLen + 8 + dataLen;
    if (in.size() < total) return 0;
    out.status = st;
    out.name = std::string(in.substr(5, nameLen));
    out.length = length;
    out.data = std::string(in.substr(5 + nameLen + 8, dataLen));
    return total;
}

}  // namespace tessera::daemon::jobs
