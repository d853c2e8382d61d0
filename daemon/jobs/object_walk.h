#pragma once
// The walk the target's bucket jobs (rebalance, reprotect, scrub) share:
// every object file under <mountpath>/buckets/<bucket>/ (or every slice file
// under <mountpath>/.tessera/ec/<bucket>/) of the mountpaths and buckets
// asked for, checking the job's abort flag as it goes.

#include "job_runner.h"

#include "api/result.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace tessera::daemon::jobs {

struct WalkedObject {
    std::size_t mountpath = 0;
    std::string bucket;
    std::string name;  // relative to the bucket's directory, '/'-separated
    std::uint64_t size = 0;
};

// The trees walked: objects, and the slices of erasure-coded objects.
inline constexpr const char* kObjectTree = "/buckets";
inline constexpr const char* kSliceTree = "/.tessera/ec";

// Calls `visit` for each file of `tree` on the mountpaths `usable` accepts,
// in the buckets `wanted` accepts; a file removed while walking is skipped.
// The first error `visit` returns ends the walk with it. Returns false (and
// visits nothing more) once the job is aborted.
inline api::Result<bool> walkObjects(const std::vector<std::string>& mountpaths, JobContext& ctx,
                                     const std::function<bool(std::size_t mp)>& usable,
                                     const std::function<bool(const std::string& bucket)>& wanted,
                                     const std::function<api::Status(const WalkedObject&)>& visit,
                                     const char* tree = kObjectTree)
{
    namespace fs = std::filesystem;
    std::size_t seen = 0;
    for (std::size_t mp = 0; mp < mountpaths.size(); ++mp) {
        if (!usable(mp)) continue;
        std::error_code ec;
        for (fs::directory_iterator b(mountpaths[mp] + tree, ec), end; !ec && b != end; b.increment(ec)) {
            const std::string bucket = b->path().filename().string();
            if (!wanted(bucket)) continue;
            std::error_code wec;
            for (fs::recursive_directory_iterator it(b->path(), fs::directory_options::skip_permission_denied, wec), e;
                 !wec && it != e; it.increment(wec)) {
                if ((++seen & 1023) == 0 && ctx.aborted()) return false;
                std::error_code fec;
                if (!it->is_regular_file(fec)) continue;
                const auto size = it->file_size(fec);
                if (fec) continue;  // deleted while walking
                auto st = visit({mp, bucket, it->path().lexically_relative(b->path()).generic_string(), size});
                if (!st) return st.error();
            }
        }
    }
    return true;
}

}  // namespace tessera::daemon::jobs
