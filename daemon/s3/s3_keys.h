#pragma once
// The S3 access keys a proxy accepts (config s3_keys_file): each maps an
// access key to its secret and to the Tessera user it acts as. The file is
// JSON, {"keys":[{"access_key":"AK...","secret_key":"...","user":"alice"}]},
// readable by the node only (it holds secrets). Read once at start.

#include "api/result.h"
#include "s3_api.h"

#include <map>
#include <string>
#include <string_view>

namespace tessera::daemon::s3 {

// BadRequest naming the entry for malformed text: access keys of 3..128
// [A-Za-z0-9], each once; secrets of 8..256 bytes; a user name.
api::Result<std::map<std::string, S3Api::Key, std::less<>>> parseS3Keys(std::string_view json);
api::Result<std::map<std::string, S3Api::Key, std::less<>>> loadS3Keys(const std::string& path);

}  // namespace tessera::daemon::s3
