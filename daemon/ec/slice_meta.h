#pragma once
// The slice metadata and its headers are wire types (shared/api/slice_meta.h);
// the erasure-coding code names them unqualified.

#include "api/slice_meta.h"

namespace tessera::daemon::ec {

using api::appendSliceHeaders;
using api::kHdrCopyStamp;
using api::kHdrDeleted;
using api::kHdrRemoved;
using api::kHdrSliceChecksum;
using api::kHdrSliceData;
using api::kHdrSliceIndex;
using api::kHdrSliceParity;
using api::kHdrSliceSize;
using api::kSliceXattr;
using api::parseSliceMeta;
using api::sliceFromHeaders;
using api::SliceMeta;
using api::validate;

}  // namespace tessera::daemon::ec
