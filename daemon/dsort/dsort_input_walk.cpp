#include "dsort_input_walk.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace tessera::daemon::dsort {

namespace {

std::string commonPrefix(const std::vector<std::string_view>& sorted)
{
    if (sorted.empty()) return {};
    // Of sorted names, the first and the last share the prefix all share.
    const auto& a = sorted.front();
    const auto& b = sorted.back();
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    return std::string(a.substr(0, i));
}

}  // namespace

api::Status walkDsortInputs(const proxy::BucketLister& list, const std::string& bucket,
                            std::vector<spec::DsortPreviewInput>& inputs, std::size_t memberBudget)
{
    std::unordered_map<std::string_view, std::size_t> position;
    std::vector<std::string_view> sorted;  // the inputs' names, in order
    sorted.reserve(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        position.emplace(inputs[i].name, i);
        sorted.push_back(inputs[i].name);
    }
    std::sort(sorted.begin(), sorted.end());
    api::ListRequest req;
    req.prefix = commonPrefix(sorted);
    req.pageSize = 64;
    req.flags = api::kLsArchDir;
    req.props = api::kPropName | api::kPropSize;
    std::size_t members = 0;
    std::size_t next = 0;  // the first input (in `sorted`) the walk has not passed
    // Every input up to the token was listed or does not exist; on to just
    // before the next one: the names between are other objects. Its name
    // less its last character (a whole UTF-8 sequence) sorts before it,
    // and only names that extend that shorter one can come between.
    const auto jump = [&] {
        while (next < sorted.size() && !req.continuationToken.empty() && sorted[next] <= req.continuationToken) ++next;
        if (next == sorted.size()) return;
        const auto name = sorted[next];
        std::size_t cut = name.empty() ? 0 : name.size() - 1;
        while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
        std::string before(name.substr(0, cut));
        if (before > req.continuationToken) req.continuationToken = std::move(before);
    };
    jump();
    spec::DsortPreviewInput* current = nullptr;
    while (next < sorted.size()) {
        auto page = list(bucket, req);
        if (!page) return api::Error{page.kind(), "cannot list " + bucket + ": " + page.error().message, {}};
        for (auto& e : page->entries) {
            if (e.flags & api::kEntryInArch) {
                if (current != nullptr && current->read) {
                    current->members.push_back({e.name.substr(current->name.size() + 1),
                                                static_cast<std::uint64_t>(std::max<std::int64_t>(e.size, 0)),
                                                std::nullopt});
                    ++members;
                }
                continue;
            }
            const auto it = position.find(e.name);
            current = it == position.end() ? nullptr : &inputs[it->second];
            if (current == nullptr) continue;
            current->found = true;
            if (!(req.flags & api::kLsArchDir)) continue;
            current->read = true;
            if (e.flags & api::kEntryArchError) current->error = e.error;
            else if (!(e.flags & api::kEntryIsArchive)) current->error = "not a shard";
        }
        if (page->continuationToken.empty()) break;
        req.continuationToken = page->continuationToken;
        jump();
        if ((req.flags & api::kLsArchDir) && members >= memberBudget) {
            req.flags = 0;  // names only from here: which inputs exist
            req.pageSize = api::kMaxPageSize;
        }
    }
    return {};
}

}  // namespace tessera::daemon::dsort
