#include "hrw.h"

#include "checksum.h"

#include <algorithm>

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
        if (!node.placement()) continue;
        const auto w = hrwWeight(id, uname);
        if (best == nullptr || w > bestWeight) {
            best = &node;
            bestWeight = w;
        }
    }
    return best;
}

std::vector<const Snode*> hrwTargets(const Smap& smap, std::string_view uname, std::size_t n)
{
    std::vector<std::pair<std::uint64_t, const Snode*>> all;
    all.reserve(smap.tmap.size());
    for (const auto& [id, node] : smap.tmap) {
        if (node.placement()) all.emplace_back(hrwWeight(id, uname), &node);
    }
    n = std::min(n, all.size());
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<const Snode*> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(all[i].second);
    return out;
}

std::vector<const Snode*> copyTargets(const Smap& smap, const BucketProps* props, std::string_view bucket,
                                      std::string_view object)
{
    const std::size_t n = props != nullptr ? props->mirror.targetCopies() : 1;
    const auto uname = objectUname(bucket, object);
    if (n <= 1) {
        const auto* owner = hrwTarget(smap, uname);
        return owner == nullptr ? std::vector<const Snode*>{} : std::vector<const Snode*>{owner};
    }
    return hrwTargets(smap, uname, n);
}

std::vector<const Snode*> ecTargets(const Smap& smap, const BucketProps* props, std::string_view bucket,
                                    std::string_view object)
{
    if (props == nullptr || !props->ec.enabled) return {};
    return hrwTargets(smap, objectUname(bucket, object), props->ec.targets());
}

std::vector<const Snode*> readTargets(const Smap& smap, const BucketProps* props, std::string_view bucket,
                                      std::string_view object)
{
    if (props != nullptr && props->ec.enabled) return ecTargets(smap, props, bucket, object);
    return copyTargets(smap, props, bucket, object);
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
