#pragma once
// The on-disk form of an object's metadata (the extended attribute
// user.tessera.meta): a compact binary record, small enough that ext4 keeps
// it inside the inode (about 60 bytes of room with 256-byte inodes) instead
// of a 4 KiB block of its own per object. Older objects hold JSON
// (api::ObjectMeta's to_json); both are read.
//
// Record (integers are LEB128 varints unless said otherwise):
//   byte   kMetaRecordV1
//   byte   flags: kXxhash (checksum is xxhash, 16 lowercase hex digits,
//          stored as 8 bytes big-endian), kCustom (custom entries follow)
//   size, atime ns, stamp            varints (non-negative)
//   version                          varint length + bytes
//   checksum                         8 bytes (kXxhash), else
//                                    type and value, each length + bytes
//   custom (kCustom)                 count, then key and value, each length + bytes

#include "api/object_meta.h"
#include "api/result.h"

#include <string>
#include <string_view>

namespace tessera::daemon::target {

inline constexpr unsigned char kMetaRecordV1 = 0x01;

std::string encodeMetaRecord(const api::ObjectMeta& meta);
// Corruption for a record that is neither form, or is cut short.
api::Result<api::ObjectMeta> decodeMetaRecord(std::string_view bytes);

}  // namespace tessera::daemon::target
