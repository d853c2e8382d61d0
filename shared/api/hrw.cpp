#include "hrw.h"

#include "checksum.h"

namespace tessera::api {

std::string objectUname(std::string_view bucket, std::string_view object)
{
    std::string s;
    s.reserve(bucket.size() + 1 + object.size());
    s.append(bucket);
    s.push_back('/');
    s.append(object);
    return s;
}

std::uint64_t hrwWeight(std::string_view id, std::string_view key) { return xxhash64(key, xxhash64(id)); }

const Snode* hrwTarget(const Smap& smap, std::string_view uname)
{
    const Snode* best = nullptr;
    std::uint64_t bestWeight = 0;
    for (const auto& [id, node] : smap.tmap) {
        const auto w = hrwWeight(id, uname);
        if (best == nullptr || w > bestWeight) {
            best = &node;
            bestWeight = w;
        }
    }
    return best;
}

std::size_t hrwIndex(const std::vector<std::string>& ids, std::string_view key)
{
    std::size_t best = 0;
    std::uint64_t bestWeight = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const auto w = hrwWeight(ids[i], key);
        if (i == 0 || w > bestWeight) {
            best = i;
            bestWeight = w;
        }
    }
    return best;
}

}  // namespace tessera::api
