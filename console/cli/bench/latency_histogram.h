#pragma once
// A log-linear latency histogram (the HdrHistogram layout, simplified):
// values in nanoseconds, each power-of-two range split into 64 equal
// sub-buckets, so a percentile is within 1/64 (1.6 %) of the true value
// whatever the scale, in a fixed 4,096-slot array (no allocation per record).
// Min, max and the sum are exact.
//
// Thread safety: none; each recorder owns one and merges it into another.

#include <array>
#include <cstdint>

namespace tessera::cli::bench {

class LatencyHistogram {
public:
    void record(std::uint64_t ns);
    void merge(const LatencyHistogram& other);
    void reset() { *this = LatencyHistogram(); }

    std::uint64_t count() const { return m_count; }
    std::uint64_t min() const { return m_count == 0 ? 0 : m_min; }
    std::uint64_t max() const { return m_max; }
    double mean() const { return m_count == 0 ? 0.0 : static_cast<double>(m_sum) / static_cast<double>(m_count); }
    // The smallest recorded value v such that at least q (0..1) of the values
    // are <= v, as the midpoint of its sub-bucket clamped to [min, max]; 0
    // when empty. q <= 0 gives min, q >= 1 gives max.
    std::uint64_t percentile(double q) const;

    // Exposed for the tests: the slot of a value, and a slot's [low, high].
    static std::size_t slotOf(std::uint64_t ns);
    static std::uint64_t slotLow(std::size_t slot);
    static std::uint64_t slotHigh(std::size_t slot);

    static constexpr unsigned kSubBits = 6;  // 64 sub-buckets per power of two
    static constexpr std::size_t kSlots = (64 - kSubBits + 1) << kSubBits;

private:
    std::array<std::uint64_t, kSlots> m_slots{};
    std::uint64_t m_count = 0;
    std::uint64_t m_sum = 0;
    std::uint64_t m_min = UINT64_MAX;
    std::uint64_t m_max = 0;
};

}  // namespace tessera::cli::bench
