#include "idx_file.h"

#include <memory>
#include <zlib.h>

namespace tessera::cli::demo {

namespace {

constexpr std::uint32_t kMaxItems = 10'000'000;
constexpr std::uint32_t kMaxSide = 4096;

struct GzCloser {
    void operator()(gzFile f) const { gzclose(f); }
};
using GzPtr = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

api::Result<GzPtr> openGz(const std::string& path)
{
    GzPtr f(gzopen(path.c_str(), "rb"));
    if (!f) return api::Error::notFound("cannot open " + path);
    gzbuffer(f.get(), 1 << 20);
    return f;
}

api::Status readExactly(gzFile f, void* dst, std::size_t n, const std::string& path)
{
    auto* p = static_cast<unsigned char*>(dst);
    while (n > 0) {
        const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n, 1u << 30));
        const int got = gzread(f, p, chunk);
        if (got <= 0) {
            int err = 0;
            const char* msg = gzerror(f, &err);
            return api::Error{api::ErrorKind::Corruption,
                              path + " is truncated or not gzip" + (err != Z_OK && msg ? std::string(": ") + msg : ""),
                              {}};
        }
        p += got;
        n -= static_cast<std::size_t>(got);
    }
    return {};
}

api::Result<std::uint32_t> readBe32(gzFile f, const std::string& path)
{
    unsigned char b[4];
    auto st = readExactly(f, b, 4, path);
    if (!st) return st.error();
    return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) | b[3];
}

}  // namespace

api::Result<IdxImages> readIdxImages(const std::string& gzPath)
{
    auto f = openGz(gzPath);
    if (!f) return f.error();
    std::uint32_t hdr[4];
    for (auto& h : hdr) {
        auto v = readBe32(f->get(), gzPath);
        if (!v) return v.error();
        h = *v;
    }
    if (hdr[0] != 0x00000803) return api::Error{api::ErrorKind::Corruption, gzPath + ": not an idx image file", {}};
    IdxImages out;
    out.count = hdr[1];
    out.rows = hdr[2];
    out.cols = hdr[3];
    if (out.count > kMaxItems || out.rows == 0 || out.cols == 0 || out.rows > kMaxSide || out.cols > kMaxSide) {
        return api::Error{api::ErrorKind::Corruption, gzPath + ": implausible dimensions", {}};
    }
    out.pixels.resize(std::size_t{out.count} * out.rows * out.cols);
    auto st = readExactly(f->get(), out.pixels.data(), out.pixels.size(), gzPath);
    if (!st) return st.error();
    return out;
}

api::Result<IdxLabels> readIdxLabels(const std::string& gzPath)
{
    auto f = openGz(gzPath);
    if (!f) return f.error();
    auto magic = readBe32(f->get(), gzPath);
    if (!magic) return magic.error();
    if (*magic != 0x00000801) return api::Error{api::ErrorKind::Corruption, gzPath + ": not an idx label file", {}};
    auto count = readBe32(f->get(), gzPath);
    if (!count) return count.error();
    if (*count > kMaxItems) return api::Error{api::ErrorKind::Corruption, gzPath + ": implausible count", {}};
    IdxLabels out;
    out.labels.resize(*count);
    auto st = readExactly(f->get(), out.labels.data(), out.labels.size(), gzPath);
    if (!st) return st.error();
    return out;
}

}  // namespace tessera::cli::demo
