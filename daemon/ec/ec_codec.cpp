#include "ec_codec.h"

#include <isa-l/erasure_code.h>

#include <algorithm>
#include <cstring>

namespace tessera::daemon::ec {

namespace {

// ISA-L's lengths are ints: whole buffers are coded in chunks of this size.
constexpr std::size_t kBufferChunk = std::size_t{1} << 20;

// ISA-L takes `unsigned char**` for inputs it only reads.
unsigned char** mutablePtrs(const std::uint8_t* const* p) { return const_cast<unsigned char**>(p); }

}  // namespace

api::Result<EcCodec> EcCodec::create(int dataSlices, int paritySlices)
{
    if (dataSlices < 1 || dataSlices > kMaxDataSlices) {
        return api::Error::badRequest("data slices must be from 1 to " + std::to_string(kMaxDataSlices) + ", not " +
                                      std::to_string(dataSlices));
    }
    if (paritySlices < 1 || paritySlices > kMaxParitySlices) {
        return api::Error::badRequest("parity slices must be from 1 to " + std::to_string(kMaxParitySlices) + ", not " +
                                      std::to_string(paritySlices));
    }
    return EcCodec(dataSlices, paritySlices);
}

EcCodec::EcCodec(int data, int parity) : m_data(data), m_parity(parity)
{
    const int rows = data + parity;
    m_matrix.resize(static_cast<std::size_t>(rows * data));
    gf_gen_cauchy1_matrix(m_matrix.data(), rows, data);
    m_encodeTables.resize(static_cast<std::size_t>(data * parity * 32));
    ec_init_tables(data, parity, m_matrix.data() + data * data, m_encodeTables.data());
}

std::uint64_t EcCodec::sliceSize(std::uint64_t objectSize) const
{
    const auto d = static_cast<std::uint64_t>(m_data);
    return objectSize / d + (objectSize % d != 0 ? 1 : 0);
}

void EcCodec::encodeChunk(std::size_t len, const std::uint8_t* const* data, std::uint8_t* const* parity) const
{
    if (len == 0) return;
    ec_encode_data(static_cast<int>(len), m_data, m_parity, const_cast<unsigned char*>(m_encodeTables.data()),
                   mutablePtrs(data), const_cast<unsigned char**>(parity));
}

api::Result<EcDecoder> EcCodec::decoder(std::vector<int> available) const
{
    const int total = totalSlices();
    for (int i : available) {
        if (i < 0 || i >= total) {
            return api::Error::badRequest("slice index " + std::to_string(i) + " is out of range 0.." +
                                          std::to_string(total - 1));
        }
    }
    std::sort(available.begin(), available.end());
    available.erase(std::unique(available.begin(), available.end()), available.end());
    if (available.size() < static_cast<std::size_t>(m_data)) {
        return api::Error::unavailable("cannot rebuild the object: " + std::to_string(available.size()) +
                                       " slice(s) at hand, " + std::to_string(m_data) + " needed (any " +
                                       std::to_string(m_data) + " of the " + std::to_string(total) + ")");
    }
    available.resize(static_cast<std::size_t>(m_data));
    EcDecoder dec;
    dec.m_data = m_data;
    dec.m_sources = available;
    for (int i = 0; i < m_data; ++i) {
        if (!std::binary_search(available.begin(), available.end(), i)) dec.m_missing.push_back(i);
    }
    if (dec.m_missing.empty()) return dec;  // every data slice is at hand: copies only
    const auto d = static_cast<std::size_t>(m_data);
    // The rows of the sources' encoding, inverted, map the sources back to
    // the data; the rows of the missing data slices are what decoding needs.
    std::vector<std::uint8_t> sub(d * d);
    for (std::size_t r = 0; r < d; ++r) {
        std::memcpy(sub.data() + r * d, m_matrix.data() + static_cast<std::size_t>(available[r]) * d, d);
    }
    std::vector<std::uint8_t> inverse(d * d);
    // A Cauchy matrix's square submatrices are all invertible: a failure
    // here is a bug, not bad input.
    if (gf_invert_matrix(sub.data(), inverse.data(), m_data) != 0) {
        return api::Error::internal("the decoding matrix of slices is singular");
    }
    std::vector<std::uint8_t> rows(dec.m_missing.size() * d);
    for (std::size_t m = 0; m < dec.m_missing.size(); ++m) {
        std::memcpy(rows.data() + m * d, inverse.data() + static_cast<std::size_t>(dec.m_missing[m]) * d, d);
    }
    dec.m_tables.resize(d * dec.m_missing.size() * 32);
    ec_init_tables(m_data, static_cast<int>(dec.m_missing.size()), rows.data(), dec.m_tables.data());
    return dec;
}

void EcDecoder::decodeChunk(std::size_t len, const std::uint8_t* const* in, std::uint8_t* const* out) const
{
    if (len == 0) return;
    for (std::size_t s = 0; s < m_sources.size(); ++s) {
        if (m_sources[s] < m_data && out[m_sources[s]] != in[s]) std::memcpy(out[m_sources[s]], in[s], len);
    }
    if (m_missing.empty()) return;
    std::vector<std::uint8_t*> rebuilt;
    rebuilt.reserve(m_missing.size());
    for (int i : m_missing) rebuilt.push_back(out[i]);
    ec_encode_data(static_cast<int>(len), m_data, static_cast<int>(m_missing.size()),
                   const_cast<unsigned char*>(m_tables.data()), mutablePtrs(in), rebuilt.data());
}

std::vector<std::string> EcCodec::encode(std::string_view object) const
{
    const auto s = static_cast<std::size_t>(sliceSize(object.size()));
    std::vector<std::string> slices(static_cast<std::size_t>(totalSlices()), std::string(s, '\0'));
    for (int i = 0; i < m_data; ++i) {
        const std::size_t from = static_cast<std::size_t>(i) * s;
        if (from < object.size()) {
            const auto n = std::min(s, object.size() - from);
            std::memcpy(slices[static_cast<std::size_t>(i)].data(), object.data() + from, n);
        }
    }
    std::vector<const std::uint8_t*> in(static_cast<std::size_t>(m_data));
    std::vector<std::uint8_t*> out(static_cast<std::size_t>(m_parity));
    for (std::size_t off = 0; off < s; off += kBufferChunk) {
        const auto len = std::min(kBufferChunk, s - off);
        for (int i = 0; i < m_data; ++i) {
            in[static_cast<std::size_t>(i)] =
                reinterpret_cast<const std::uint8_t*>(slices[static_cast<std::size_t>(i)].data()) + off;
        }
        for (int p = 0; p < m_parity; ++p) {
            out[static_cast<std::size_t>(p)] =
                reinterpret_cast<std::uint8_t*>(slices[static_cast<std::size_t>(m_data + p)].data()) + off;
        }
        encodeChunk(len, in.data(), out.data());
    }
    return slices;
}

api::Result<std::string> EcCodec::decode(const std::map<int, std::string>& slices, std::uint64_t objectSize) const
{
    const auto s = static_cast<std::size_t>(sliceSize(objectSize));
    std::vector<int> available;
    for (const auto& [i, bytes] : slices) {
        if (bytes.size() != s) {
            return api::Error::badRequest("slice " + std::to_string(i) + " has " + std::to_string(bytes.size()) +
                                          " bytes; an object of " + std::to_string(objectSize) +
                                          " bytes has slices of " + std::to_string(s));
        }
        available.push_back(i);
    }
    auto dec = decoder(std::move(available));
    if (!dec) return dec.error();
    std::string data(s * static_cast<std::size_t>(m_data), '\0');
    std::vector<const std::uint8_t*> in(static_cast<std::size_t>(m_data));
    std::vector<std::uint8_t*> out(static_cast<std::size_t>(m_data));
    for (std::size_t off = 0; off < s; off += kBufferChunk) {
        const auto len = std::min(kBufferChunk, s - off);
        for (std::size_t k = 0; k < dec->sources().size(); ++k) {
            in[k] = reinterpret_cast<const std::uint8_t*>(slices.at(dec->sources()[k]).data()) + off;
        }
        for (int i = 0; i < m_data; ++i) {
            out[static_cast<std::size_t>(i)] =
                reinterpret_cast<std::uint8_t*>(data.data()) + static_cast<std::size_t>(i) * s + off;
        }
        dec->decodeChunk(len, in.data(), out.data());
    }
    data.resize(static_cast<std::size_t>(objectSize));
    return data;
}

}  // namespace tessera::daemon::ec
