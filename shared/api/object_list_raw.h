#pragma once
// A listing page kept as the text a target sent, for the proxy's JSON
// answer: the proxy finds each entry's name, flags and bytes, merges the
// targets' pages by name, and copies the chosen entries' bytes into its
// answer instead of decoding every entry into an ObjEntry and writing it
// again (a page of 10,000 names crosses the proxy about a hundred times a
// second during a listing).
//
// Only a page in exactly the form dumpObjectList writes is taken: keys in
// its order, no blanks, strings without escapes or control bytes in valid
// UTF-8, no empty or zero field that dumpObjectList leaves out, numbers
// without leading zeros, and no stamp (a stand-in page's entries are weighed by
// their stamps, which are not passed on). For such a page,
// dumpObjectList(parseObjectList(body)) == body, byte for byte (the fuzz
// harness checks it), so an entry copied through is the entry the decoding
// path would have written. Anything else is refused, and the caller takes
// that path.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

struct RawObjectList {
    struct Entry {
        std::uint32_t nameAt = 0, nameSize = 0;  // the name (without quotes) in body
        std::uint32_t textAt = 0, textSize = 0;  // the whole entry, {...}, in body
        std::uint32_t flags = 0;                 // ObjEntry::flags
    };
    std::string body;
    std::uint32_t tokenAt = 0, tokenSize = 0;  // continuation_token in body
    std::vector<Entry> entries;

    std::string_view name(const Entry& e) const { return {body.data() + e.nameAt, e.nameSize}; }
    std::string_view text(const Entry& e) const { return {body.data() + e.textAt, e.textSize}; }
    std::string_view continuationToken() const { return {body.data() + tokenAt, tokenSize}; }
};

// Finds the entries and the token of `page.body`; false when the body is
// not in the exact form above (or larger than 4 GiB). The body is left as
// it was either way (a caller decodes it on false).
bool scanRawObjectList(RawObjectList& page);

}  // namespace tessera::api
