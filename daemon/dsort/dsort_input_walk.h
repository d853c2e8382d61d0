#pragma once
// dSort's dry run reads its inputs from one walk of the input bucket: which
// of the named shards exist and, while a member budget lasts, their members
// in archive order (a listing with the archive flag sends each shard
// followed by its members).

#include "proxy/bucket_lister.h"
#include "spec/dsort_preview.h"

#include <string>
#include <vector>

namespace tessera::daemon::dsort {

// Fills each input's found, read, error and members (inputs hold the names,
// without duplicates, in any order). The walk lists under the names'
// common prefix in pages of 64 shards with their members until
// `memberBudget` members were read, then in names-only pages of 10,000; it
// jumps over the names between one input and the next (other objects under
// the prefix are neither listed nor opened for their members) and stops
// once the last input's name is behind it. A listing error is returned as
// "cannot list B: why", of its kind.
api::Status walkDsortInputs(const proxy::BucketLister& list, const std::string& bucket,
                            std::vector<spec::DsortPreviewInput>& inputs, std::size_t memberBudget);

}  // namespace tessera::daemon::dsort
