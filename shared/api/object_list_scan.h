#pragma once
// The fast path of parseObjectList: a scanner for pages in the shape
// dumpObjectList writes (any key order, any whitespace), which is what
// every Tessera node sends. It takes strings as they are (no copy through a
// lexer) and gives up on anything it does not handle exactly as the SAX
// parser would: an escape, a byte outside ASCII, a control byte, a number
// with a sign, fraction or exponent, an unknown key, a missing name. Then
// parseObjectList runs the full parser, whose answer (and error) stands.

#include "object_list.h"

#include <string_view>

namespace tessera::api::detail {

// True when `json` was scanned whole into `out` (fresh), with its
// continuation_token; false to fall back (out is then left unspecified).
bool scanObjectList(std::string_view json, ObjectList& out);

}  // namespace tessera::api::detail
