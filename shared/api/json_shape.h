#pragma once
// A streaming (SAX) check of a JSON body's shape before it is parsed into a
// document: the top-level type, the nesting depth and the number of values.
// A document costs about 16x its text in memory; the check costs nothing but
// a pass over the text and stops at the first violation, so a body of the
// wrong shape (a 100 MiB array sent where an object is expected) is refused
// without ever being built.

#include "result.h"

#include <cstddef>
#include <string_view>

namespace tessera::api {

struct JsonShape {
    enum class Top { Object, Array };
    Top top = Top::Object;
    std::size_t maxDepth = 16;
    std::size_t maxValues = 1'000'000;  // scalars, objects and arrays counted
};

// BadRequest naming `what` and the violation; ok when the text is valid JSON
// of that shape.
Status checkJsonShape(std::string_view text, const JsonShape& shape, std::string_view what);

}  // namespace tessera::api
