#include "fashion_mnist.h"

#include "idx_file.h"
#include "png_encoder.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace tessera::cli::demo {

api::Result<ConvertSummary> convertFashionMnist(const std::string& sourceDir, std::uint64_t limit,
                                                const SampleFileSink& sink)
{
    struct Split {
        const char* name;
        const char* images;
        const char* labels;
    };
    const Split splits[] = {{"train", "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"},
                            {"test", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}};
    ConvertSummary sum;
    for (const auto& split : splits) {
        if (limit != 0 && sum.samples >= limit) break;
        auto images = readIdxImages(sourceDir + "/" + split.images);
        if (!images) return images.error();
        auto labels = readIdxLabels(sourceDir + "/" + split.labels);
        if (!labels) return labels.error();
        if (labels->labels.size() != images->count) {
            return api::Error{api::ErrorKind::Corruption,
                              std::string(split.name) + ": " + std::to_string(images->count) + " images but " +
                                  std::to_string(labels->labels.size()) + " labels",
                              {}};
        }
        for (std::uint32_t i = 0; i < images->count; ++i) {
            if (limit != 0 && sum.samples >= limit) break;
            const auto label = labels->labels[i];
            if (label >= kFashionClasses.size()) {
                return api::Error{api::ErrorKind::Corruption,
                                  std::string(split.name) + " label " + std::to_string(i) + " is " +
                                      std::to_string(label) + ", not a class 0..9",
                                  {}};
            }
            char key[32];
            std::snprintf(key, sizeof key, "%s/%06u", split.name, i);
            auto png = encodeGrayPng(images->image(i), images->cols, images->rows);
            if (!png) return png.error();
            const nlohmann::json meta{
                {"label", label}, {"label_name", kFashionClasses[label]}, {"split", split.name}, {"index", i}};
            const std::pair<std::string, std::string> files[] = {{std::string(key) + ".png", std::move(*png)},
                                                                 {std::string(key) + ".cls", std::to_string(label)},
                                                                 {std::string(key) + ".json", meta.dump()}};
            for (const auto& [name, bytes] : files) {
                auto st = sink(name, bytes);
                if (!st) return st.error();
                ++sum.files;
                sum.bytes += bytes.size();
            }
            ++sum.samples;
            ++sum.perClass[label];
        }
    }
    return sum;
}

}  // namespace tessera::cli::demo
