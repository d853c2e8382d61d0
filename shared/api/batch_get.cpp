#include "batch_get.h"

#include "names.h"

namespace tessera::api {

namespace {

void putLe(std::string& out, std::uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t getLe(std::string_view in, std::size_t at, int bytes)
{
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= std::uint64_t(static_cast<unsigned char>(in[at + i])) << (8 * i);
    return v;
}

}  // namespace

void to_json(nlohmann::json& j, const BatchGetRequest& v)
{
    j = nlohmann::json{{"bucket", v.bucket}, {"names", v.names}};
}

void readFields(FieldReader& r, BatchGetRequest& v)
{
    r.required("bucket", v.bucket).required("names", v.names);
    if (!r.ok()) return;
    if (auto st = validateBucketName(v.bucket); !st) return r.fail(r.pointerTo("bucket"), st.error().message);
    if (v.names.size() > BatchGet::kMaxNames) {
        return r.fail(r.pointerTo("names"), "more than " + std::to_string(BatchGet::kMaxNames) + " names");
    }
    for (std::size_t i = 0; i < v.names.size(); ++i) {
        if (auto st = validateObjectName(v.names[i]); !st) {
            return r.fail(r.pointerTo("names") + "/" + std::to_string(i), st.error().message);
        }
    }
}

void BatchGet::appendRecord(std::string& out, Status st, std::string_view name, std::string_view data,
                            std::uint64_t length)
{
    out.push_back(static_cast<char>(st));
    putLe(out, name.size(), 4);
    out.append(name);
    putLe(out, length, 8);
    out.append(data);
}

std::size_t BatchGet::parseRecord(std::string_view in, Record& out)
{
    if (in.size() < 5) return 0;
    const auto nameLen = getLe(in, 1, 4);
    if (in.size() < 5 + nameLen + 8) return 0;
    const auto length = getLe(in, 5 + nameLen, 8);
    const auto st = static_cast<Status>(static_cast<unsigned char>(in[0]));
    const std::uint64_t dataLen = (st == kOk || st == kError || st == kCorrupt) ? length : 0;
    if (in.size() - (5 + nameLen + 8) < dataLen) return 0;
    const std::size_t total = 5 + nameLen + 8 + dataLen;
    out.status = st;
    out.name = std::string(in.substr(5, nameLen));
    out.length = length;
    out.data = std::string(in.substr(5 + nameLen + 8, dataLen));
    return total;
}

}  // namespace tessera::api
