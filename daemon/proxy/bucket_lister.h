#pragma once
// A page of a bucket's listing for the proxy's own callers (ishard's
// planner, dSort's dry run, the S3 front end): ProxyApi::listPage, called in
// process. Such a caller runs on a worker thread and must not list through
// the proxy's own HTTP port: that listing needs a worker too, and with every
// worker waiting on one, nothing is answered until the calls time out.

#include "api/object_list.h"
#include "api/result.h"

#include <functional>
#include <string>

namespace tessera::daemon::proxy {

using BucketLister = std::function<api::Result<api::ObjectList>(const std::string& bucket, const api::ListRequest& lr)>;

}  // namespace tessera::daemon::proxy
