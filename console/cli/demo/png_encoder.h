#pragma once
// 8-bit grayscale PNG encoding with libpng, into memory.

#include "api/result.h"

#include <cstdint>
#include <string>

namespace tessera::cli::demo {

api::Result<std::string> encodeGrayPng(const std::uint8_t* pixels, std::uint32_t width, std::uint32_t height);

}  // namespace tessera::cli::demo
