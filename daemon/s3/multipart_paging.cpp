#include "multipart_paging.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace tessera::daemon::s3 {

namespace {

api::Result<std::uint32_t> parseWhole(const std::string& text, const char* name, std::uint32_t absent)
{
    if (text.empty()) return absent;
    std::uint64_t v = 0;
    const auto* end = text.data() + text.size();
    const auto [p, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || p != end || v > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
        return api::Error::badRequest(std::string("InvalidArgument: ") + name +
                                      " must be an integer between 0 and 2147483647");
    }
    return static_cast<std::uint32_t>(v);
}

}  // namespace

api::Result<std::uint32_t> parsePageSize(const std::string& text, const char* name)
{
    auto v = parseWhole(text, name, kMaxListPage);
    if (!v) return v;
    return std::min(*v, kMaxListPage);
}

api::Result<std::uint32_t> parsePartMarker(const std::string& text)
{
    return parseWhole(text, "part-number-marker", 0);
}

PartPage pageParts(std::vector<api::MultipartPart> all, std::uint32_t marker, std::uint32_t maxParts)
{
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
    PartPage page;
    for (auto& p : all) {
        if (p.number <= marker) continue;
        if (page.parts.size() == maxParts) {
            page.truncated = true;
            break;
        }
        page.parts.push_back(std::move(p));
    }
    if (!page.parts.empty()) page.nextMarker = page.parts.back().number;
    return page;
}

UploadPage pageUploads(std::vector<api::MultipartUpload> all, const UploadQuery& q)
{
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.key != b.key ? a.key < b.key : a.uploadId < b.uploadId; });
    UploadPage page;
    std::size_t listed = 0;  // uploads and common prefixes
    const bool idMarker = !q.keyMarker.empty() && !q.uploadIdMarker.empty();
    for (auto& u : all) {
        if (u.key.compare(0, q.prefix.size(), q.prefix) != 0) continue;
        if (!q.keyMarker.empty()) {
            const bool after =
                u.key > q.keyMarker || (idMarker && u.key == q.keyMarker && u.uploadId > q.uploadIdMarker);
            if (!after) continue;
        }
        std::string common;
        if (!q.delimiter.empty()) {
            const auto at = u.key.find(q.delimiter, q.prefix.size());
            if (at != std::string::npos) common = u.key.substr(0, at + q.delimiter.size());
        }
        if (!common.empty()) {
            // A prefix listed on this page, or the marker of the previous one.
            if (common == q.keyMarker) continue;
            if (!page.commonPrefixes.empty() && page.commonPrefixes.back() == common) continue;
        }
        if (listed == q.maxUploads) {
            page.truncated = true;
            break;
        }
        ++listed;
        if (!common.empty()) {
            page.commonPrefixes.push_back(std::move(common));
            page.nextKeyMarker = page.commonPrefixes.back();
            page.nextUploadIdMarker.clear();
        } else {
            page.nextKeyMarker = u.key;
            page.nextUploadIdMarker = u.uploadId;
            page.uploads.push_back(std::move(u));
        }
    }
    if (!page.truncated) {
        page.nextKeyMarker.clear();
        page.nextUploadIdMarker.clear();
    }
    return page;
}

}  // namespace tessera::daemon::s3
