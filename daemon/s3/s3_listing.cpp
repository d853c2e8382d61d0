#include "s3_listing.h"

#include "s3_errors.h"

#include "api/s3_msg.h"
#include "api/uri.h"

#include <algorithm>

namespace tessera::daemon::s3 {

using net::Request;
using net::Response;

Response Listing::listObjects(const Request& req) const
{
    const auto bucket = req.param("bucket");
    if (auto c = m_ctx.authenticate(req, bucket, api::Permission::List); !c) return fromError(c.error(), "/" + bucket);
    if (!m_ctx.bucketExists(bucket)) return m_ctx.noSuchBucket(bucket);
    const std::string resource = "/" + bucket;
    const bool v2 = req.queryValue("list-type") == "2";
    if (req.hasQuery("list-type") && !v2) {
        return s3Error(400, "InvalidArgument", "list-type must be 2", resource);
    }
    api::S3ObjectList out;
    out.v2 = v2;
    out.name = bucket;
    out.prefix = req.queryValue("prefix");
    out.delimiter = req.queryValue("delimiter");
    const auto enc = req.queryValue("encoding-type");
    if (!enc.empty() && enc != "url") return s3Error(400, "InvalidArgument", "encoding-type must be url", resource);
    out.encodingType = enc;
    if (req.hasQuery("max-keys")) {
        const auto mk = req.queryValue("max-keys");
        if (mk.empty() || mk.size() > 9 ||
            !std::all_of(mk.begin(), mk.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            return s3Error(400, "InvalidArgument", "max-keys must be a non-negative whole number", resource);
        }
        out.maxKeys = std::min<std::uint32_t>(static_cast<std::uint32_t>(std::stoul(mk)), api::kS3MaxKeys);
    }
    std::string start;  // only names after this one
    if (v2) {
        out.startAfter = req.queryValue("start-after");
        start = out.startAfter;
        if (req.hasQuery("continuation-token")) {
            out.continuationToken = req.queryValue("continuation-token");
            auto t = unhex(out.continuationToken);
            if (!t || t->empty()) return s3Error(400, "InvalidArgument", "malformed continuation token", resource);
            start = std::max(start, *t);
        }
    } else {
        out.marker = req.queryValue("marker");
        start = out.marker;
    }
    // Names before the prefix cannot match: start there.
    std::string after = start;
    std::string lastPrefix;  // the last CommonPrefix emitted
    std::string lastEmitted;
    std::uint32_t count = 0;
    bool more = true;
    bool truncated = false;
    while (more && !truncated) {
        auto page = m_ctx.nativeList(bucket, out.prefix, after, api::kDefaultPageSize);
        if (!page) {
            if (page.kind() == api::ErrorKind::NotFound) return m_ctx.noSuchBucket(bucket);
            return fromError(page.error(), resource);
        }
        more = !page->continuationToken.empty() && !page->entries.empty();
        for (const auto& e : page->entries) {
            after = e.name;
            if (e.name <= start) continue;
            if (e.name.compare(0, out.prefix.size(), out.prefix) != 0) continue;
            std::string commonPrefix;
            if (!out.delimiter.empty()) {
                const auto pos = e.name.find(out.delimiter, out.prefix.size());
                if (pos != std::string::npos) commonPrefix = e.name.substr(0, pos + out.delimiter.size());
            }
            if (!commonPrefix.empty()) {
                // A token that is a common prefix covers every name under it.
                if (commonPrefix == lastPrefix || commonPrefix == start) continue;
            }
            if (count == out.maxKeys) {
                truncated = out.maxKeys > 0;
                break;
            }
            if (!commonPrefix.empty()) {
                out.commonPrefixes.push_back(commonPrefix);
                lastPrefix = commonPrefix;
                lastEmitted = commonPrefix;
            } else {
                api::S3Object o;
                o.key = e.name;
                o.size = e.size;
                o.etag = "\"" + (e.checksum.empty() ? std::string("0") : e.checksum) + "-1\"";
                o.lastModified = e.atime.size() >= 19 ? e.atime.substr(0, 19) + ".000Z" : api::s3IsoTime(0);
                out.contents.push_back(std::move(o));
                lastEmitted = e.name;
            }
            ++count;
        }
        if (out.maxKeys == 0) break;
    }
    out.isTruncated = truncated;
    out.keyCount = count;
    if (truncated) {
        if (v2) out.nextContinuationToken = hexOf(lastEmitted);
        else out.nextMarker = lastEmitted;
    }
    if (enc == "url") {
        const auto e = [](std::string& s) { s = api::percentEncode(s, true); };
        e(out.prefix);
        e(out.delimiter);
        e(out.startAfter);
        e(out.marker);
        e(out.nextMarker);
        for (auto& o : out.contents) e(o.key);
        for (auto& p : out.commonPrefixes) e(p);
    }
    return xmlResponse(200, api::toXml(out));
}

}  // namespace tessera::daemon::s3
