#pragma once
// Reed-Solomon erasure coding over GF(2^8) with Intel ISA-L: an object is
// cut into D data slices of equal size (ceil(size / D) bytes, the last one
// zero-padded; the object's size, kept beside the slices, strips the
// padding) and P parity slices of the same size; any D of the D + P slices
// rebuild the object.
//
// The encoding matrix is ISA-L's Cauchy matrix (gf_gen_cauchy1_matrix): an
// identity on the data rows and Cauchy rows for parity, so that every D x D
// submatrix is invertible and any D slices decode (the Vandermonde matrix
// ISA-L also offers does not guarantee that for every D and P).
//
// Slices are coded in stripes: byte k of each slice belongs to stripe k, so
// an object can be coded in chunks (the same range of every slice at a
// time) with bounded memory; see ec_stream.h for files.
//
// Thread safety: a codec and a decoder are immutable after creation; their
// const methods may be called from any thread at once.

#include "api/result.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::ec {

// The limits of one bucket's erasure coding (api::EcConf checks the same).
inline constexpr int kMaxDataSlices = 16;
inline constexpr int kMaxParitySlices = 8;

class EcDecoder;

class EcCodec {
public:
    // BadRequest unless 1 <= dataSlices <= 16 and 1 <= paritySlices <= 8.
    static api::Result<EcCodec> create(int dataSlices, int paritySlices);

    int dataSlices() const { return m_data; }
    int paritySlices() const { return m_parity; }
    int totalSlices() const { return m_data + m_parity; }
    // The size of each slice of an object of `objectSize` bytes.
    std::uint64_t sliceSize(std::uint64_t objectSize) const;

    // One stripe chunk: the P parity chunks of D data chunks of `len` bytes
    // each (len < 2^31). `data` has D pointers, `parity` P.
    void encodeChunk(std::size_t len, const std::uint8_t* const* data, std::uint8_t* const* parity) const;

    // A decoder for the slices at hand (indices 0..D+P-1): the first D of
    // them in ascending order are the ones it reads. Unavailable when fewer
    // than D distinct valid indices are given; BadRequest for an index out
    // of range.
    api::Result<EcDecoder> decoder(std::vector<int> available) const;

    // Whole objects in memory (tests and small objects): the D + P slices
    // of `object`, each sliceSize(object.size()) bytes.
    std::vector<std::string> encode(std::string_view object) const;
    // The object of `objectSize` bytes from `slices` (index -> bytes, each
    // sliceSize(objectSize) long; extra slices are ignored). Unavailable
    // when fewer than D are given, BadRequest when one has the wrong size.
    api::Result<std::string> decode(const std::map<int, std::string>& slices, std::uint64_t objectSize) const;

private:
    friend class EcDecoder;
    EcCodec(int data, int parity);

    int m_data = 0;
    int m_parity = 0;
    std::vector<std::uint8_t> m_matrix;        // (D + P) x D, row-major
    std::vector<std::uint8_t> m_encodeTables;  // ec_init_tables of the parity rows: D * P * 32
};

// Rebuilds the D data chunks of a stripe from the D chunks of sources().
class EcDecoder {
public:
    // The slice indices whose chunks decodeChunk() takes, in that order.
    const std::vector<int>& sources() const { return m_sources; }
    // `in`: D chunks of `len` bytes, of the slices sources() names, in its
    // order; `out`: D data chunks of `len` bytes (slices 0..D-1).
    void decodeChunk(std::size_t len, const std::uint8_t* const* in, std::uint8_t* const* out) const;

private:
    friend class EcCodec;
    EcDecoder() = default;

    int m_data = 0;
    std::vector<int> m_sources;          // D slice indices, ascending
    std::vector<int> m_missing;          // data slice indices not among the sources
    std::vector<std::uint8_t> m_tables;  // ec_init_tables of the rows that rebuild m_missing
};

}  // namespace tessera::daemon::ec
