#include "sigv4.h"

#include "auth/hmac_sha256.h"

#include <algorithm>
#include <ctime>
#include <openssl/evp.h>

namespace tessera::daemon::s3 {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (auto& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

std::string trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return std::string(s);
}

// A header value as signed: trimmed, inner runs of spaces as one.
std::string canonicalValue(std::string_view v)
{
    std::string t = trim(v);
    std::string out;
    bool space = false;
    for (char c : t) {
        if (c == ' ' || c == '\t') {
            space = true;
            continue;
        }
        if (space) out.push_back(' ');
        space = false;
        out.push_back(c);
    }
    return out;
}

bool isHex(std::string_view s, std::size_t n)
{
    if (s.size() != n) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

api::Error malformed(const std::string& why) { return api::Error::badRequest("AuthorizationHeaderMalformed: " + why); }

std::string toHex(const unsigned char* p, std::size_t n)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(n * 2);
    for (std::size_t i = 0; i < n; ++i) {
        out.push_back(kDigits[p[i] >> 4]);
        out.push_back(kDigits[p[i] & 15]);
    }
    return out;
}

std::string hmacRaw(std::string_view key, std::string_view data)
{
    const auto mac = auth::hmacSha256(key, data);
    return std::string(reinterpret_cast<const char*>(mac.data()), mac.size());
}

// "Credential=AK/20130524/us-east-1/s3/aws4_request" -> fields of `sig`.
api::Status parseCredential(std::string_view cred, SigV4& sig)
{
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        auto slash = cred.find('/', start);
        parts.emplace_back(cred.substr(start, slash == std::string_view::npos ? cred.size() - start : slash - start));
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    if (parts.size() != 5 || parts[4] != "aws4_request" || parts[0].empty() || parts[1].size() != 8 ||
        parts[2].empty() || parts[3].empty()) {
        return malformed("the credential must be <access key>/<YYYYMMDD>/<region>/<service>/aws4_request");
    }
    sig.accessKey = parts[0];
    sig.date = parts[1];
    sig.region = parts[2];
    sig.service = parts[3];
    return {};
}

api::Status parseSignedHeaders(std::string_view list, SigV4& sig)
{
    sig.signedHeaders.clear();
    std::size_t start = 0;
    while (start <= list.size()) {
        auto semi = list.find(';', start);
        auto h = list.substr(start, semi == std::string_view::npos ? list.size() - start : semi - start);
        if (h.empty()) return malformed("empty name in SignedHeaders");
        sig.signedHeaders.push_back(lower(h));
        if (semi == std::string_view::npos) break;
        start = semi + 1;
    }
    if (std::find(sig.signedHeaders.begin(), sig.signedHeaders.end(), "host") == sig.signedHeaders.end()) {
        return malformed("SignedHeaders must include host");
    }
    return {};
}

}  // namespace

api::Result<std::int64_t> parseAmzDate(std::string_view s)
{
    if (s.size() != 16 || s[8] != 'T' || s[15] != 'Z') return malformed("X-Amz-Date must be YYYYMMDDTHHMMSSZ");
    std::tm tm{};
    const std::string text(s);
    const char* end = strptime(text.c_str(), "%Y%m%dT%H%M%SZ", &tm);
    if (end == nullptr || *end != '\0') return malformed("X-Amz-Date must be YYYYMMDDTHHMMSSZ");
    return static_cast<std::int64_t>(timegm(&tm));
}

api::Result<std::optional<SigV4>> parseSigV4(const SignedRequest& req)
{
    SigV4 sig;
    const auto algo = req.query.find("X-Amz-Algorithm");
    if (algo != req.query.end()) {
        if (algo->second != "AWS4-HMAC-SHA256") return malformed("X-Amz-Algorithm must be AWS4-HMAC-SHA256");
        sig.presigned = true;
        const auto q = [&](std::string_view k) {
            auto it = req.query.find(k);
            return it == req.query.end() ? std::string() : it->second;
        };
        if (auto st = parseCredential(q("X-Amz-Credential"), sig); !st) return st.error();
        if (auto st = parseSignedHeaders(q("X-Amz-SignedHeaders"), sig); !st) return st.error();
        sig.amzDate = q("X-Amz-Date");
        if (auto d = parseAmzDate(sig.amzDate); !d) return d.error();
        sig.signature = q("X-Amz-Signature");
        const auto expires = q("X-Amz-Expires");
        if (expires.empty() || expires.size() > 7 ||
            !std::all_of(expires.begin(), expires.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            return malformed("X-Amz-Expires must be a number of seconds");
        }
        sig.expires = std::stoll(expires);
        if (sig.expires < 1 || sig.expires > kMaxPresignSeconds) {
            return malformed("X-Amz-Expires must be 1.." + std::to_string(kMaxPresignSeconds) + " seconds");
        }
        sig.payloadHash = std::string(kUnsignedPayload);
    } else {
        const auto auth = req.header("authorization");
        if (auth.empty()) return std::optional<SigV4>{};
        constexpr std::string_view kAlgo = "AWS4-HMAC-SHA256 ";
        if (auth.rfind("AWS ", 0) == 0) {
            return malformed(
                "Signature Version 2 is not supported; use Signature Version 4 (s3cmd: signature_v2 = "
                "False)");
        }
        if (auth.rfind(kAlgo, 0) != 0) return malformed("the Authorization header must start with AWS4-HMAC-SHA256");
        std::string_view rest = std::string_view(auth).substr(kAlgo.size());
        bool haveCred = false, haveHeaders = false, haveSig = false;
        while (!rest.empty()) {
            auto comma = rest.find(',');
            const std::string itemText = trim(rest.substr(0, comma));
            auto eq = itemText.find('=');
            if (eq == std::string::npos) return malformed("expected name=value in the Authorization header");
            const auto name = itemText.substr(0, eq);
            const auto value = itemText.substr(eq + 1);
            if (name == "Credential") {
                if (auto st = parseCredential(value, sig); !st) return st.error();
                haveCred = true;
            } else if (name == "SignedHeaders") {
                if (auto st = parseSignedHeaders(value, sig); !st) return st.error();
                haveHeaders = true;
            } else if (name == "Signature") {
                sig.signature = value;
                haveSig = true;
            } else {
                return malformed("unknown field \"" + name + "\" in the Authorization header");
            }
            if (comma == std::string_view::npos) break;
            rest = rest.substr(comma + 1);
        }
        if (!haveCred || !haveHeaders || !haveSig) {
            return malformed("the Authorization header needs Credential, SignedHeaders and Signature");
        }
        sig.amzDate = req.header("x-amz-date");
        if (auto d = parseAmzDate(sig.amzDate); !d) return d.error();
        sig.payloadHash = req.header("x-amz-content-sha256");
        if (sig.payloadHash.empty()) return malformed("x-amz-content-sha256 is missing");
        if (sig.payloadHash != kUnsignedPayload && sig.payloadHash != kStreamingPayload &&
            sig.payloadHash != kStreamingUnsignedTrailer && sig.payloadHash != kStreamingSignedTrailer &&
            !isHex(sig.payloadHash, 64)) {
            return malformed("x-amz-content-sha256 must be a SHA-256 hex digest, UNSIGNED-PAYLOAD, " +
                             std::string(kStreamingPayload) + ", " + std::string(kStreamingSignedTrailer) + " or " +
                             std::string(kStreamingUnsignedTrailer));
        }
    }
    if (!isHex(sig.signature, 64)) return malformed("the signature must be 64 lowercase hex digits");
    if (sig.amzDate.substr(0, 8) != sig.date) return malformed("the credential's date is not X-Amz-Date's day");
    return std::optional<SigV4>{std::move(sig)};
}

std::string canonicalRequest(const SignedRequest& req, const SigV4& sig)
{
    std::string out = req.method + "\n";
    // The path decoded and encoded again the way AWS does ('/' kept): a
    // client may have escaped a character S3 leaves alone, or the reverse.
    auto decoded = api::percentDecode(req.path);
    out += decoded ? api::percentEncode(*decoded, true) : req.path;
    out += "\n";
    std::vector<std::pair<std::string, std::string>> q;
    for (const auto& [k, v] : req.query) {
        if (sig.presigned && k == "X-Amz-Signature") continue;
        q.emplace_back(api::percentEncode(k), api::percentEncode(v));
    }
    std::sort(q.begin(), q.end());
    for (std::size_t i = 0; i < q.size(); ++i) {
        if (i > 0) out += "&";
        out += q[i].first + "=" + q[i].second;
    }
    out += "\n";
    for (const auto& h : sig.signedHeaders) out += h + ":" + canonicalValue(req.header(h)) + "\n";
    out += "\n";
    for (std::size_t i = 0; i < sig.signedHeaders.size(); ++i) {
        if (i > 0) out += ";";
        out += sig.signedHeaders[i];
    }
    out += "\n";
    out += sig.payloadHash;
    return out;
}

std::string sha256Hex(std::string_view data)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(data.data(), data.size(), md, &n, EVP_sha256(), nullptr);
    return toHex(md, n);
}

std::string hmacHex(std::string_view key, std::string_view data)
{
    const auto mac = auth::hmacSha256(key, data);
    return toHex(mac.data(), mac.size());
}

std::string stringToSign(const SigV4& sig, std::string_view canonical)
{
    return "AWS4-HMAC-SHA256\n" + sig.amzDate + "\n" + sig.scope() + "\n" + sha256Hex(canonical);
}

std::string signingKey(std::string_view secret, const SigV4& sig)
{
    const auto kDate = hmacRaw("AWS4" + std::string(secret), sig.date);
    const auto kRegion = hmacRaw(kDate, sig.region);
    const auto kService = hmacRaw(kRegion, sig.service);
    return hmacRaw(kService, "aws4_request");
}

api::Status verifySigV4(const SignedRequest& req, const SigV4& sig, std::string_view secret, std::int64_t nowUnix)
{
    auto when = parseAmzDate(sig.amzDate);
    if (!when) return when.error();
    if (sig.presigned) {
        if (nowUnix > *when + sig.expires) return api::Error::forbidden("AccessDenied: the presigned URL has expired");
    } else if (*when > nowUnix + kMaxClockSkewSeconds || *when < nowUnix - kMaxClockSkewSeconds) {
        return api::Error::forbidden("RequestTimeTooSkewed: X-Amz-Date is more than 15 minutes from the server's time");
    }
    const auto expected = hmacHex(signingKey(secret, sig), stringToSign(sig, canonicalRequest(req, sig)));
    if (!auth::sameBytes(expected, sig.signature)) {
        return api::Error::forbidden(
            "SignatureDoesNotMatch: the request signature we calculated does not match the signature you provided");
    }
    return {};
}

std::string chunkSignature(std::string_view key, const SigV4& sig, std::string_view previous,
                           std::string_view chunkSha256Hex)
{
    static const std::string kEmptyHash = sha256Hex("");
    const std::string toSign = "AWS4-HMAC-SHA256-PAYLOAD\n" + sig.amzDate + "\n" + sig.scope() + "\n" +
                               std::string(previous) + "\n" + kEmptyHash + "\n" + std::string(chunkSha256Hex);
    return hmacHex(key, toSign);
}

std::string trailerSignature(std::string_view key, const SigV4& sig, std::string_view previous,
                             std::string_view canonicalTrailers)
{
    const std::string toSign = "AWS4-HMAC-SHA256-TRAILER\n" + sig.amzDate + "\n" + sig.scope() + "\n" +
                               std::string(previous) + "\n" + sha256Hex(canonicalTrailers);
    return hmacHex(key, toSign);
}

}  // namespace tessera::daemon::s3
