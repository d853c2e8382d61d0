#pragma once
// Fashion-MNIST (Debian's dataset-fashion-mnist: 60,000 training and 10,000
// test images of 28x28 in idx format) as WebDataset samples: for each image
// a key `train/000123` (or `test/...`) and three files, `<key>.png` (the
// image), `<key>.cls` (the class index as text) and `<key>.json`
// ({"label","label_name","split","index"}).

#include "api/result.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>

namespace tessera::cli::demo {

inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";
inline constexpr std::array<const char*, 10> kFashionClasses = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"};

struct ConvertSummary {
    std::uint64_t samples = 0;
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
    std::array<std::uint64_t, 10> perClass{};
};

// Receives one file of a sample: its name (`train/000123.png`) and bytes.
using SampleFileSink = std::function<api::Status(const std::string& name, const std::string& bytes)>;

// Converts the training split, then the test split, stopping after `limit`
// samples (0: all). A sink error ends the conversion with that error;
// a malformed source is Corruption, a missing one NotFound.
api::Result<ConvertSummary> convertFashionMnist(const std::string& sourceDir, std::uint64_t limit,
                                                const SampleFileSink& sink);

}  // namespace tessera::cli::demo
