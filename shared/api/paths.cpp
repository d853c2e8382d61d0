#include "paths.h"

#include "uri.h"

namespace tessera::api::path {

std::string bucket(std::string_view b) { return std::string(kBuckets) + "/" + percentEncode(b); }

std::string object(std::string_view b, std::string_view name)
{
    return "/v1/objects/" + percentEncode(b) + "/" + percentEncode(name, true);
}

std::string internalEcSlice(std::string_view b, std::string_view name)
{
    return "/v1/internal/ec/" + percentEncode(b) + "/" + percentEncode(name, true);
}

std::string job(std::string_view id) { return std::string(kJobs) + "/" + percentEncode(id); }

std::string internalJob(std::string_view id) { return std::string(kInternalJobs) + "/" + percentEncode(id); }

std::string internalBucket(std::string_view b) { return "/v1/internal/buckets/" + percentEncode(b); }

std::string internalDsort(std::string_view jobId, std::string_view what)
{
    return "/v1/internal/dsort/" + percentEncode(jobId) + "/" + std::string(what);
}

std::string clusterWhat(std::string_view what) { return std::string(kCluster) + "?what=" + percentEncode(what); }

std::string daemonWhat(std::string_view what) { return "/v1/daemon?what=" + percentEncode(what); }

}  // namespace tessera::api::path
