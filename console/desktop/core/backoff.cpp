#include "core/backoff.h"

#include <algorithm>

namespace tessera::console {

Backoff::Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds maximum, double jitter)
    : m_initial(initial), m_maximum(std::max(initial, maximum)), m_jitter(std::clamp(jitter, 0.0, 1.0)),
      m_base(initial), m_random(std::random_device{}())
{
}

std::chrono::milliseconds Backoff::next()
{
    const auto base = m_base;
    m_base = std::min(m_base * 2, m_maximum);
    ++m_attempts;
    std::uniform_real_distribution<double> spread(0.0, m_jitter);
    const auto extra = std::chrono::milliseconds(static_cast<long long>(base.count() * spread(m_random)));
    return base + extra;
}

void Backoff::reset()
{
    m_base = m_initial;
    m_attempts = 0;
}

}  // namespace tessera::console
