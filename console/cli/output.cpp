#include "output.h"

#include <algorithm>
#include <cstdio>

namespace tessera::cli {

std::string formatBytes(std::uint64_t bytes)
{
    static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        ++u;
    }
    char buf[32];
    if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    else std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[u]);
    return buf;
}

std::string formatRate(double bytesPerSecond)
{
    return formatBytes(static_cast<std::uint64_t>(std::max(0.0, bytesPerSecond))) + "/s";
}

std::string Table::render() const
{
    std::vector<std::size_t> widths;
    for (const auto& row : m_rows) {
        if (widths.size() < row.size()) widths.resize(row.size(), 0);
        for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
    }
    std::string out;
    for (const auto& row : m_rows) {
        for (std::size_t i = 0; i < row.size(); ++i) {
            out += row[i];
            if (i + 1 < row.size()) out += std::string(widths[i] - row[i].size() + 2, ' ');
        }
        out += '\n';
    }
    return out;
}

}  // namespace tessera::cli
