#pragma once
// Validation of bucket and object names. Both run before anything touches a
// disk: a name that passes is safe to join under a mountpath.

#include "result.h"

#include <cstddef>
#include <string_view>

namespace tessera::api {

constexpr std::size_t kMaxObjectNameBytes = 1024;
constexpr std::size_t kMaxNameComponentBytes = 255;  // NAME_MAX on Linux filesystems
constexpr std::size_t kMinBucketNameLen = 3;
constexpr std::size_t kMaxBucketNameLen = 63;

// S3 rules: 3-63 chars of [a-z0-9.-], alphanumeric first and last, no "..",
// not shaped like an IPv4 address.
Status validateBucketName(std::string_view name);

// Object names (already percent-decoded): 1..1024 bytes of valid UTF-8, '/'
// separated components of 1..255 bytes; no "." or ".." components, no leading
// or trailing '/', no empty component, no NUL or other control characters, no
// backslash.
Status validateObjectName(std::string_view name);

bool isValidUtf8(std::string_view s);

}  // namespace tessera::api
