#include "models/capacity_level.h"

namespace tessera::console {

CapacityLevel capacityLevel(std::uint64_t used, std::uint64_t total)
{
    if (total == 0) {
        return CapacityLevel::Normal;
    }
    const double fraction = static_cast<double>(used) / static_cast<double>(total);
    if (fraction >= kCapacityCritical) {
        return CapacityLevel::Critical;
    }
    if (fraction >= kCapacityWarning) {
        return CapacityLevel::Warning;
    }
    return CapacityLevel::Normal;
}

}  // namespace tessera::console
