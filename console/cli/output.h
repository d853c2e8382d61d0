#pragma once
// Human-readable formatting for the CLI.

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::cli {

std::string formatBytes(std::uint64_t bytes);   // "1.5 MiB"
std::string formatRate(double bytesPerSecond);  // "12.3 MiB/s"

// A simple left-aligned table; the last column is not padded.
class Table {
public:
    explicit Table(std::vector<std::string> header) : m_rows{std::move(header)} {}
    void add(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }
    std::string render() const;

private:
    std::vector<std::vector<std::string>> m_rows;
};

}  // namespace tessera::cli
