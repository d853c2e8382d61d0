#pragma once
// The idx format of (Fashion-)MNIST, gzip-compressed as distributed:
// a big-endian header (magic 0x0803 for images, 0x0801 for labels, then the
// dimensions) followed by unsigned bytes. Read whole into memory (the
// Fashion-MNIST training images are 47 MB).

#include "api/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::cli::demo {

struct IdxImages {
    std::uint32_t count = 0;
    std::uint32_t rows = 0;
    std::uint32_t cols = 0;
    std::vector<std::uint8_t> pixels;  // count * rows * cols, row-major
    const std::uint8_t* image(std::uint32_t i) const { return pixels.data() + std::size_t{i} * rows * cols; }
};

struct IdxLabels {
    std::vector<std::uint8_t> labels;
};

// NotFound for a missing file; Corruption for a bad magic, absurd
// dimensions (over 10,000,000 items or 4096 pixels a side) or a short file.
api::Result<IdxImages> readIdxImages(const std::string& gzPath);
api::Result<IdxLabels> readIdxLabels(const std::string& gzPath);

}  // namespace tessera::cli::demo
