#include "latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace tessera::cli::bench {

namespace {
constexpr std::uint64_t kSub = std::uint64_t{1} << LatencyHistogram::kSubBits;
}

// Values below 64 have a slot each; above, the slot is (range, the 6 bits
// after the leading one): range r covers [64 << (r-1), 64 << r).
std::size_t LatencyHistogram::slotOf(std::uint64_t ns)
{
    if (ns < kSub) return static_cast<std::size_t>(ns);
    const unsigned top = 63u - static_cast<unsigned>(std::countl_zero(ns));  // >= kSubBits
    const unsigned range = top - kSubBits + 1;
    const std::uint64_t sub = (ns >> (top - kSubBits)) & (kSub - 1);
    return (static_cast<std::size_t>(range) << kSubBits) + static_cast<std::size_t>(sub);
}

std::uint64_t LatencyHistogram::slotLow(std::size_t slot)
{
    const std::size_t range = slot >> kSubBits;
    const std::uint64_t sub = slot & (kSub - 1);
    if (range == 0) return sub;
    const unsigned shift = static_cast<unsigned>(range) - 1;
    return (kSub + sub) << shift;
}

std::uint64_t LatencyHistogram::slotHigh(std::size_t slot)
{
    const std::size_t range = slot >> kSubBits;
    if (range == 0) return slotLow(slot);
    const unsigned shift = static_cast<unsigned>(range) - 1;
    return slotLow(slot) + ((std::uint64_t{1} << shift) - 1);
}

void LatencyHistogram::record(std::uint64_t ns)
{
    ++m_slots[slotOf(ns)];
    ++m_count;
    m_sum += ns;
    m_min = std::min(m_min, ns);
    m_max = std::max(m_max, ns);
}

void LatencyHistogram::merge(const LatencyHistogram& other)
{
    if (other.m_count == 0) return;
    for (std::size_t i = 0; i < kSlots; ++i) m_slots[i] += other.m_slots[i];
    m_count += other.m_count;
    m_sum += other.m_sum;
    m_min = std::min(m_min, other.m_min);
    m_max = std::max(m_max, other.m_max);
}

std::uint64_t LatencyHistogram::percentile(double q) const
{
    if (m_count == 0) return 0;
    if (q <= 0) return m_min;
    if (q >= 1) return m_max;
    // The rank of the value: ceil(q * count), at least 1.
    const auto rank =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(m_count))));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < kSlots; ++i) {
        seen += m_slots[i];
        if (seen >= rank) {
            const std::uint64_t mid = slotLow(i) + (slotHigh(i) - slotLow(i)) / 2;
            return std::clamp(mid, min(), m_max);
        }
    }
    return m_max;
}

}  // namespace tessera::cli::bench
