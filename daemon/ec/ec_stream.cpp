#include "ec_stream.h"

#include "api/checksum.h"
#include "common/fd_io.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace tessera::daemon::ec {

namespace {

constexpr std::uint64_t kStripeChunk = std::uint64_t{1} << 20;

}  // namespace

api::Result<std::vector<EncodedSlice>> encodeSlices(const EcCodec& codec, int objectFd, std::uint64_t size,
                                                    const TempFileMaker& makeTemp)
{
    const auto d = static_cast<std::size_t>(codec.dataSlices());
    const auto total = static_cast<std::size_t>(codec.totalSlices());
    const auto s = codec.sliceSize(size);
    std::vector<EncodedSlice> out(total);
    std::vector<std::unique_ptr<api::Xxh64Stream>> hashes;
    for (std::size_t i = 0; i < total; ++i) {
        auto fd = makeTemp();
        if (!fd) return fd.error();
        out[i].fd = std::move(fd.value());
        hashes.push_back(std::make_unique<api::Xxh64Stream>());
    }
    const auto chunk = static_cast<std::size_t>(std::min(kStripeChunk, std::max<std::uint64_t>(s, 1)));
    std::vector<std::uint8_t> buf(chunk * total);
    std::vector<const std::uint8_t*> in(d);
    std::vector<std::uint8_t*> parity(total - d);
    for (std::uint64_t off = 0; off < s; off += chunk) {
        const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, s - off));
        for (std::size_t i = 0; i < d; ++i) {
            auto* p = buf.data() + i * chunk;
            const std::uint64_t from = i * s + off;  // where this part of slice i is in the object
            const std::uint64_t have = from < size ? std::min<std::uint64_t>(len, size - from) : 0;
            if (have > 0) {
                if (const int e = preadExact(objectFd, p, static_cast<std::size_t>(have), from); e != 0) {
                    return errnoError(e, "cannot read the object to encode it");
                }
            }
            std::memset(p + have, 0, len - static_cast<std::size_t>(have));
            in[i] = p;
        }
        for (std::size_t k = d; k < total; ++k) parity[k - d] = buf.data() + k * chunk;
        codec.encodeChunk(len, in.data(), parity.data());
        for (std::size_t i = 0; i < total; ++i) {
            const auto* p = buf.data() + i * chunk;
            hashes[i]->update(p, len);
            if (const int e = pwriteAll(out[i].fd.get(), p, len, off); e != 0) {
                return errnoError(e, "cannot write a slice file");
            }
        }
    }
    for (std::size_t i = 0; i < total; ++i) out[i].checksum = hashes[i]->hex();
    return out;
}

api::Status decodeSlices(const EcCodec& codec, const std::map<int, int>& sliceFds, std::uint64_t size, int outFd)
{
    std::vector<int> available;
    for (const auto& [i, fd] : sliceFds) available.push_back(i);
    auto dec = codec.decoder(std::move(available));
    if (!dec) return dec.error();
    const auto d = static_cast<std::size_t>(codec.dataSlices());
    const auto s = codec.sliceSize(size);
    const auto chunk = static_cast<std::size_t>(std::min(kStripeChunk, std::max<std::uint64_t>(s, 1)));
    std::vector<std::uint8_t> inBuf(chunk * d);
    std::vector<std::uint8_t> outBuf(chunk * d);
    std::vector<const std::uint8_t*> in(d);
    std::vector<std::uint8_t*> out(d);
    for (std::size_t i = 0; i < d; ++i) out[i] = outBuf.data() + i * chunk;
    for (std::uint64_t off = 0; off < s; off += chunk) {
        const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, s - off));
        for (std::size_t k = 0; k < d; ++k) {
            auto* p = inBuf.data() + k * chunk;
            if (const int e = preadExact(sliceFds.at(dec->sources()[k]), p, len, off); e != 0) {
                return errnoError(e, "cannot read slice " + std::to_string(dec->sources()[k]));
            }
            in[k] = p;
        }
        dec->decodeChunk(len, in.data(), out.data());
        for (std::size_t i = 0; i < d; ++i) {
            const std::uint64_t to = i * s + off;
            if (to >= size) break;
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(len, size - to));
            if (const int e = pwriteAll(outFd, out[i], n, to); e != 0) {
                return errnoError(e, "cannot write the rebuilt object");
            }
        }
    }
    return {};
}

}  // namespace tessera::daemon::ec
