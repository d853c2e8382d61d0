#pragma once

#include <cstdint>

namespace tessera::console {

// How full a mountpath (or a node) is, as the console colours it.
enum class CapacityLevel { Normal, Warning, Critical };

constexpr double kCapacityWarning = 0.85;   // amber from 85 % used
constexpr double kCapacityCritical = 0.95;  // red from 95 % used

// Unknown totals (0) count as Normal.
CapacityLevel capacityLevel(std::uint64_t used, std::uint64_t total);

}  // namespace tessera::console
