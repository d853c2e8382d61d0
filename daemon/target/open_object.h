#pragma once
// An object opened for reading: its descriptor (shared: a response being
// sent keeps it open) and its metadata.

#include "api/object_meta.h"
#include "common/unique_fd.h"

#include <cstdint>
#include <memory>

namespace tessera::daemon::target {

struct OpenObject {
    std::shared_ptr<UniqueFd> fd;
    api::ObjectMeta meta;      // size and atime from the file itself
    std::int64_t mtimeNs = 0;  // when this copy was written (kept across rebalancing)
    std::int64_t ctimeNs = 0;  // inode change time when opened (the open-object cache checks it)
};

}  // namespace tessera::daemon::target
