// `tessera demo fashion-mnist`: Debian's Fashion-MNIST as WebDataset samples,
// uploaded as loose objects.

#include "api/json_util.h"
#include "api/object_list.h"
#include "arg_parser.h"
#include "commands.h"
#include "demo/fashion_mnist.h"
#include "output.h"
#include "uploader.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <unistd.h>

namespace tessera::cli {

namespace fs = std::filesystem;

int cmdDemoFashionMnist(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--source", "--bucket", "--limit", "--workers", "--out"}, {"--force"});
    if (!args.positional.empty()) throw UsageError("demo fashion-mnist takes no positional arguments");
    const auto source = args.value("--source", demo::kFashionMnistDir);
    const auto bucket = args.value("--bucket", "fashion-mnist-raw");
    const auto limit = args.number("--limit", 0);
    const auto workers = args.number("--workers", 16);
    if (workers < 1 || workers > 256) throw UsageError("--workers must be 1..256");

    auto client = ctx.makeClient();
    if (auto props = client.bucketProps(bucket); props) {
        api::ListRequest one;
        one.pageSize = 1;
        auto page = client.listObjects(bucket, one);
        if (!page) return ctx.fail(page.error());
        if (!page->entries.empty() && !args.has("--force")) {
            *ctx.out << "bucket \"" << bucket << "\" already holds objects; nothing to do (--force uploads again)\n";
            return kExitOk;
        }
    } else if (props.kind() == api::ErrorKind::NotFound) {
        auto created = client.createBucket(bucket);
        if (!created) return ctx.fail(created.error());
    } else {
        return ctx.fail(props.error());
    }

    // Convert into files (a temporary directory unless --out), then upload
    // them with the parallel uploader, straight to the owning targets.
    const bool keep = !args.value("--out").empty();
    std::string dir = args.value("--out");
    if (!keep) {
        std::string tmpl = (fs::temp_directory_path() / "tessera-fmnist-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) == nullptr) return ctx.fail(api::Error::ioError("cannot create a temporary directory"));
        dir = tmpl;
    }
    std::vector<UploadItem> items;
    auto summary = demo::convertFashionMnist(source, limit, [&](const std::string& name, const std::string& bytes) -> api::Status {
        const fs::path path = fs::path(dir) / name;
        std::error_code ec;
        fs::create_directories(path.parent_path(), ec);
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!f) return api::Error::ioError("cannot write " + path.string());
        items.push_back({path.string(), name, bytes.size()});
        return {};
    });
    if (!summary) {
        if (!keep) fs::remove_all(dir);
        return ctx.fail(summary.error());
    }
    Uploader up(ctx.endpoint, bucket, static_cast<unsigned>(workers), false, true, *ctx.err,
                ::isatty(STDERR_FILENO) != 0);
    auto res = up.run(items);
    if (!keep) fs::remove_all(dir);
    if (ctx.json) {
        *ctx.out << api::dumpJson({{"bucket", bucket},
                                   {"samples", summary->samples},
                                   {"objects", res.objects},
                                   {"bytes", res.bytes},
                                   {"seconds", res.seconds},
                                   {"per_class", summary->perClass},
                                   {"failed", res.failures.size()}})
                 << "\n";
    } else {
        *ctx.out << summary->samples << " samples (" << summary->files << " objects, " << formatBytes(summary->bytes)
                 << ") converted; " << res.objects << " uploaded to \"" << bucket << "\" in " << res.seconds << " s\n";
        for (std::size_t c = 0; c < demo::kFashionClasses.size(); ++c) {
            *ctx.out << "  " << c << " " << demo::kFashionClasses[c] << ": " << summary->perClass[c] << "\n";
        }
        for (std::size_t i = 0; i < res.failures.size() && i < 10; ++i) {
            *ctx.err << "failed: " << res.failures[i].first << ": " << res.failures[i].second << "\n";
        }
    }
    return res.failures.empty() ? kExitOk : kExitFailed;
}

}  // namespace tessera::cli
