#include "s3_msg.h"

#include <charconv>
#include <ctime>
#include <pugixml.hpp>
#include <sstream>

namespace tessera::api {

namespace {

class StringWriter : public pugi::xml_writer {
public:
    std::string out;
    void write(const void* data, size_t size) override { out.append(static_cast<const char*>(data), size); }
};

// A document with the XML declaration and `root` (in S3's namespace when
// `ns`); the caller fills the root.
pugi::xml_node newDoc(pugi::xml_document& doc, const char* root, bool ns = true)
{
    auto decl = doc.prepend_child(pugi::node_declaration);
    decl.append_attribute("version") = "1.0";
    decl.append_attribute("encoding") = "UTF-8";
    auto r = doc.append_child(root);
    if (ns) r.append_attribute("xmlns") = std::string(kS3Xmlns).c_str();
    return r;
}

std::string save(const pugi::xml_document& doc)
{
    StringWriter w;
    doc.save(w, "", pugi::format_raw, pugi::encoding_utf8);
    return std::move(w.out);
}

void add(pugi::xml_node n, const char* name, const std::string& text) { n.append_child(name).text().set(text.c_str()); }
void addNum(pugi::xml_node n, const char* name, std::int64_t v) { add(n, name, std::to_string(v)); }
void addBool(pugi::xml_node n, const char* name, bool v) { add(n, name, v ? "true" : "false"); }

// Loads `xml` and checks its root element's name.
Result<pugi::xml_node> load(pugi::xml_document& doc, std::string_view xml, const char* root)
{
    if (xml.size() > kS3MaxXmlBody) {
        return Error::badRequest("XML body larger than " + std::to_string(kS3MaxXmlBody) + " bytes");
    }
    const auto res = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!res) {
        return Error::badRequest(std::string("malformed XML at byte ") + std::to_string(res.offset) + ": " +
                                 res.description());
    }
    auto r = doc.document_element();
    if (std::string_view(r.name()) != root) {
        return Error::badRequest(std::string("XML root element must be <") + root + ">, not <" + r.name() + ">");
    }
    return r;
}

std::string text(pugi::xml_node n, const char* name) { return n.child(name).text().get(); }

template <typename T>
Result<T> number(pugi::xml_node n, const char* name, T fallback)
{
    auto c = n.child(name);
    if (!c) return fallback;
    const std::string_view s = c.text().get();
    T v{};
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) {
        return Error::badRequest(std::string("<") + name + "> must be a whole number, not \"" + std::string(s) + "\"");
    }
    return v;
}

Result<bool> boolean(pugi::xml_node n, const char* name)
{
    auto c = n.child(name);
    if (!c) return false;
    const std::string_view s = c.text().get();
    if (s == "true") return true;
    if (s == "false") return false;
    return Error::badRequest(std::string("<") + name + "> must be true or false");
}

}  // namespace

std::string toXml(const S3Error& v)
{
    pugi::xml_document doc;
    auto r = newDoc(doc, "Error", false);
    add(r, "Code", v.code);
    add(r, "Message", v.message);
    if (!v.resource.empty()) add(r, "Resource", v.resource);
    if (!v.requestId.empty()) add(r, "RequestId", v.requestId);
    return save(doc);
}

Result<S3Error> parseS3Error(std::string_view xml)
{
    pugi::xml_document doc;
    auto r = load(doc, xml, "Error");
    if (!r) return r.error();
    return S3Error{text(*r, "Code"), text(*r, "Message"), text(*r, "Resource"), text(*r, "RequestId")};
}

std::string toXml(const S3BucketList& v)
{
    pugi::xml_document doc;
    auto r = newDoc(doc, "ListAllMyBucketsResult");
    auto owner = r.append_child("Owner");
    add(owner, "ID", v.ownerId);
    add(owner, "DisplayName", v.ownerId);
    auto bs = r.append_child("Buckets");
    for (const auto& b : v.buckets) {
        auto n = bs.append_child("Bucket");
        add(n, "Name", b.name);
        add(n, "CreationDate", b.creationDate);
    }
    return save(doc);
}

Result<S3BucketList> parseS3BucketList(std::string_view xml)
{
    pugi::xml_document doc;
    auto r = load(doc, xml, "ListAllMyBucketsResult");
    if (!r) return r.error();
    S3BucketList out;
    out.ownerId = text(r->child("Owner"), "ID");
    for (auto b : r->child("Buckets").children("Bucket")) {
        out.buckets.push_back({text(b, "Name"), text(b, "CreationDate")});
    }
    return out;
}

std::string toXml(const S3ObjectList& v)
{
    pugi::xml_document doc;
    auto r = newDoc(doc, "ListBucketResult");
    add(r, "Name", v.name);
    add(r, "Prefix", v.prefix);
    if (v.v2) {
        if (!v.continuationToken.empty()) add(r, "ContinuationToken", v.continuationToken);
        if (!v.nextContinuationToken.empty()) add(r, "NextContinuationToken", v.nextContinuationToken);
        if (!v.startAfter.empty()) add(r, "StartAfter", v.startAfter);
        addNum(r, "KeyCount", v.keyCount);
    } else {
        add(r, "Marker", v.marker);
        if (!v.nextMarker.empty()) add(r, "NextMarker", v.nextMarker);
    }
    addNum(r, "MaxKeys", v.maxKeys);
    if (!v.delimiter.empty()) add(r, "Delimiter", v.delimiter);
    if (!v.encodingType.empty()) add(r, "EncodingType", v.encodingType);
    addBool(r, "IsTruncated", v.isTruncated);
    for (const auto& o : v.contents) {
        auto n = r.append_child("Contents");
        add(n, "Key", o.key);
        add(n, "LastModified", o.lastModified);
        add(n, "ETag", o.etag);
        addNum(n, "Size", o.size);
        add(n, "StorageClass", "STANDARD");
    }
    for (const auto& p : v.commonPrefixes) add(r.append_child("CommonPrefixes"), "Prefix", p);
    return save(doc);
}

Result<S3ObjectList> parseS3ObjectList(std::string_view xml)
{
    pugi::xml_document doc;
    auto r = load(doc, xml, "ListBucketResult");
    if (!r) return r.error();
    S3ObjectList out;
    out.v2 = static_cast<bool>(r->child("KeyCount"));
    // A result is of one version: a v1 one (no KeyCount) with v2's tokens, or
    // a v2 one with v1's markers, is not a result S3 writes.
    for (const char* field : {"ContinuationToken", "NextContinuationToken", "StartAfter"}) {
        if (!out.v2 && r->child(field)) {
            return Error::badRequest(std::string("a ListObjects (v1) result, without KeyCount, has ") + field);
        }
    }
    for (const char* field : {"Marker", "NextMarker"}) {
        if (out.v2 && r->child(field)) {
            return Error::badRequest(std::string("a ListObjectsV2 result, with KeyCount, has ") + field);
        }
    }
    out.name = text(*r, "Name");
    out.prefix = text(*r, "Prefix");
    out.delimiter = text(*r, "Delimiter");
    out.encodingType = text(*r, "EncodingType");
    auto maxKeys = number<std::uint32_t>(*r, "MaxKeys", kS3MaxKeys);
    if (!maxKeys) return maxKeys.error();
    out.maxKeys = *maxKeys;
    auto truncated = boolean(*r, "IsTruncated");
    if (!truncated) return truncated.error();
    out.isTruncated = *truncated;
    out.continuationToken = text(*r, "ContinuationToken");
    out.nextContinuationToken = text(*r, "NextContinuationToken");
    out.startAfter = text(*r, "StartAfter");
    auto count = number<std::uint32_t>(*r, "KeyCount", 0);
    if (!count) return count.error();
    out.keyCount = *count;
    out.marker = text(*r, "Marker");
    out.nextMarker = text(*r, "NextMarker");
    for (auto c : r->children("Contents")) {
        auto size = number<std::int64_t>(c, "Size", 0);
        if (!size) return size.error();
        out.contents.push_back({text(c, "Key"), text(c, "LastModified"), text(c, "ETag"), *size});
    }
    for (auto p : r->children("CommonPrefixes")) out.commonPrefixes.push_back(text(p, "Prefix"));
    return out;
}

std::string toXml(const S3DeleteRequest& v)
{
    pugi::xml_document doc;
    auto r = newDoc(doc, "Delete");
    if (v.quiet) addBool(r, "Quiet", true);
    for (const auto& k : v.keys) add(r.append_child("Object"), "Key", k);
    return save(doc);
}

Result<S3DeleteRequest> parseS3DeleteRequest(std::string_view xml)
{
    pugi::xml_document doc;
    auto r = load(doc, xml, "Delete");
    if (!r) return r.error();
    S3DeleteRequest out;
    auto quiet = boolean(*r, "Quiet");
    if (!quiet) return quiet.error();
    out.quiet = *quiet;
    for (auto o : r->children("Object")) {
        auto key = text(o, "Key");
        if (key.empty()) return Error::badRequest("<Object> without a <Key>");
        if (out.keys.size() == kS3MaxDeleteKeys) {
            return Error::badRequest("more than " + std::to_string(kS3MaxDeleteKeys) + " keys in one <Delete>");
        }
        out.keys.push_back(std::move(key));
    }
    if (out.keys.empty()) return Error::badRequest("<Delete> names no <Object>");
    return out;
}

std::string toXml(const S3DeleteResult& v)
{
    pugi::xml_document doc;
    auto r = newDoc(doc, "DeleteResult");
    for (const auto& k : v.deleted) add(r.append_child("Deleted"), "Key", k);
    for (const auto& e : v.errors) {
        auto n = r.append_child("Error");
        add(n, "Key", e.key);
        add(n, "Code", e.code);
        add(n, "Message", e.message);
    }
    return save(doc);
}

Result<S3DeleteResult> parseS3DeleteResult(std::string_view xml)
{
    pugi::xml_document doc;
    auto r = load(doc, xml, "DeleteResult");
    if (!r) return r.error();
    S3DeleteResult out;
    for (auto d : r->children("Deleted")) out.deleted.push_back(text(d, "Key"));
    for (auto e : r->children("Error")) out.errors.push_back({text(e, "Key"), text(e, "Code"), text(e, "Message")});
    return out;
}

std::string toXml(const S3CopyResult& v)
{
    pugi::xml_document doc;
    auto r = newDoc(doc, v.part ? "CopyPartResult" : "CopyObjectResult");
    add(r, "LastModified", v.lastModified);
    add(r, "ETag", v.etag);
    return save(doc);
}

Result<S3CopyResult> parseS3CopyResult(std::string_view xml)
{
    pugi::xml_document doc;
    const bool part = xml.find("<CopyPartResult") != std::string_view::npos;
    auto r = load(doc, xml, part ? "CopyPartResult" : "CopyObjectResult");
    if (!r) return r.error();
    return S3CopyResult{text(*r, "ETag"), text(*r, "LastModified"), part};
}

std::string toXml(const S3InitiateUpload& v)
{
    pugi::xml_document doc;
    auto r = newDoc(doc, "InitiateMultipartUploadResult");
    add(r, "Bucket", v.bucket);
    add(r, "Key", v.key);
    add(r, "UploadId", v.uploadId);
    return save(doc);
}

Result<S3InitiateUpload> parseS3InitiateUpload(std::string_view xml)
{
    pugi::xml_document doc;
    auto r = load(doc, xml, "InitiateMultipartUploadResult");
    if (!r) return r.error();
    return S3InitiateUpload{text(*r, "Bucket"), text(*r, "Key"), text(*r, "UploadId")};
}

std::string toXml(const S3CompleteUpload& v)
{
    pugi::xml_document doc;
    auto r = newDoc(doc, "CompleteMultipartUpload");
    for (const auto& p : v.parts) {
        auto n = r.append_child("Part");
        addNum(n, "PartNumber", p.number);
        add(n, "ETag", p.etag);
    }
    return save(doc);
}

Result<S3CompleteUpload> parseS3CompleteUpload(std::string_view xml)
{
    pugi::xml_document doc;
    auto r = load(doc, xml, "CompleteMultipartUpload");
    if (!r) return r.error();
    S3CompleteUpload out;
    for (auto p : r->children("Part")) {
        auto n = number<std::uint32_t>(p, "PartNumber", 0);
        if (!n) return n.error();
        if (*n < 1 || *n > kS3MaxParts) {
            return Error::badRequest("<PartNumber> must be 1.." + std::to_string(kS3MaxParts));
        }
        if (out.parts.size() == kS3MaxParts) return Error::badRequest("more than 10000 parts");
        S3Part part;
        part.number = *n;
        part.etag = text(p, "ETag");
        out.parts.push_back(std::move(part));
    }
    if (out.parts.empty()) return Error::badRequest("<CompleteMultipartUpload> names no <Part>");
    return out;
}

std::string toXml(const S3CompleteResult& v)
{
    pugi::xml_document doc;
    auto r = newDoc(doc, "CompleteMultipartUploadResult");
    add(r, "Location", v.location);
    add(r, "Bucket", v.bucket);
    add(r, "Key", v.key);
    add(r, "ETag", v.etag);
    return save(doc);
}

Result<S3CompleteResult> parseS3CompleteResult(std::string_view xml)
{
    pugi::xml_document doc;
    auto r = load(doc, xml, "CompleteMultipartUploadResult");
    if (!r) return r.error();
    return S3CompleteResult{text(*r, "Location"), text(*r, "Bucket"), text(*r, "Key"), text(*r, "ETag")};
}

std::string toXml(const S3PartList& v)
{
    pugi::xml_document doc;
    auto r = newDoc(doc, "ListPartsResult");
    add(r, "Bucket", v.bucket);
    add(r, "Key", v.key);
    add(r, "UploadId", v.uploadId);
    addNum(r, "PartNumberMarker", v.partNumberMarker);
    addNum(r, "NextPartNumberMarker", v.nextPartNumberMarker);
    addNum(r, "MaxParts", v.maxParts);
    addBool(r, "IsTruncated", v.isTruncated);
    for (const auto& p : v.parts) {
        auto n = r.append_child("Part");
        addNum(n, "PartNumber", p.number);
        add(n, "LastModified", p.lastModified);
        add(n, "ETag", p.etag);
        addNum(n, "Size", p.size);
    }
    return save(doc);
}

Result<S3PartList> parseS3PartList(std::string_view xml)
{
    pugi::xml_document doc;
    auto r = load(doc, xml, "ListPartsResult");
    if (!r) return r.error();
    S3PartList out;
    out.bucket = text(*r, "Bucket");
    out.key = text(*r, "Key");
    out.uploadId = text(*r, "UploadId");
    auto marker = number<std::uint32_t>(*r, "PartNumberMarker", 0);
    if (!marker) return marker.error();
    out.partNumberMarker = *marker;
    auto next = number<std::uint32_t>(*r, "NextPartNumberMarker", 0);
    if (!next) return next.error();
    out.nextPartNumberMarker = *next;
    auto maxParts = number<std::uint32_t>(*r, "MaxParts", 1000);
    if (!maxParts) return maxParts.error();
    out.maxParts = *maxParts;
    auto truncated = boolean(*r, "IsTruncated");
    if (!truncated) return truncated.error();
    out.isTruncated = *truncated;
    for (auto p : r->children("Part")) {
        auto n = number<std::uint32_t>(p, "PartNumber", 0);
        if (!n) return n.error();
        auto size = number<std::int64_t>(p, "Size", 0);
        if (!size) return size.error();
        out.parts.push_back({*n, text(p, "ETag"), *size, text(p, "LastModified")});
    }
    return out;
}

std::string toXml(const S3UploadList& v)
{
    pugi::xml_document doc;
    auto r = newDoc(doc, "ListMultipartUploadsResult");
    add(r, "Bucket", v.bucket);
    add(r, "KeyMarker", v.keyMarker);
    add(r, "UploadIdMarker", v.uploadIdMarker);
    if (v.isTruncated || !v.nextKeyMarker.empty()) add(r, "NextKeyMarker", v.nextKeyMarker);
    if (v.isTruncated || !v.nextUploadIdMarker.empty()) add(r, "NextUploadIdMarker", v.nextUploadIdMarker);
    add(r, "Prefix", v.prefix);
    if (!v.delimiter.empty()) add(r, "Delimiter", v.delimiter);
    if (!v.encodingType.empty()) add(r, "EncodingType", v.encodingType);
    addNum(r, "MaxUploads", v.maxUploads);
    addBool(r, "IsTruncated", v.isTruncated);
    for (const auto& u : v.uploads) {
        auto n = r.append_child("Upload");
        add(n, "Key", u.key);
        add(n, "UploadId", u.uploadId);
        add(n, "Initiated", u.initiated);
    }
    for (const auto& p : v.commonPrefixes) add(r.append_child("CommonPrefixes"), "Prefix", p);
    return save(doc);
}

Result<S3UploadList> parseS3UploadList(std::string_view xml)
{
    pugi::xml_document doc;
    auto r = load(doc, xml, "ListMultipartUploadsResult");
    if (!r) return r.error();
    S3UploadList out;
    out.bucket = text(*r, "Bucket");
    out.prefix = text(*r, "Prefix");
    out.delimiter = text(*r, "Delimiter");
    out.encodingType = text(*r, "EncodingType");
    out.keyMarker = text(*r, "KeyMarker");
    out.uploadIdMarker = text(*r, "UploadIdMarker");
    out.nextKeyMarker = text(*r, "NextKeyMarker");
    out.nextUploadIdMarker = text(*r, "NextUploadIdMarker");
    auto maxUploads = number<std::uint32_t>(*r, "MaxUploads", 1000);
    if (!maxUploads) return maxUploads.error();
    out.maxUploads = *maxUploads;
    auto truncated = boolean(*r, "IsTruncated");
    if (!truncated) return truncated.error();
    out.isTruncated = *truncated;
    for (auto u : r->children("Upload")) {
        out.uploads.push_back({text(u, "Key"), text(u, "UploadId"), text(u, "Initiated")});
    }
    for (auto p : r->children("CommonPrefixes")) out.commonPrefixes.push_back(text(p, "Prefix"));
    return out;
}

std::string s3IsoTime(std::int64_t unixSeconds)
{
    const std::time_t t = static_cast<std::time_t>(unixSeconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
    return buf;
}

std::string httpDate(std::int64_t unixSeconds)
{
    const std::time_t t = static_cast<std::time_t>(unixSeconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    return buf;
}

Result<std::int64_t> parseHttpDate(std::string_view text)
{
    // RFC 7231 IMF-fixdate, RFC 850, asctime; all in GMT.
    static const char* const kForms[] = {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT",
                                         "%a %b %e %H:%M:%S %Y"};
    const std::string s(text);
    for (const char* form : kForms) {
        std::tm tm{};
        const char* end = strptime(s.c_str(), form, &tm);
        if (end != nullptr && *end == '\0') return static_cast<std::int64_t>(timegm(&tm));
    }
    return Error::badRequest("not an HTTP date: \"" + s + "\"");
}

}  // namespace tessera::api
