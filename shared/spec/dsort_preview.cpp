#include "dsort_preview.h"

#include "dsort_plan.h"

#include "api/hrw.h"
#include "api/names.h"
#include "api/wire.h"
#include "archive/archive_writer.h"
#include "archive/member_name.h"

#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace tessera::spec {

namespace {

constexpr std::size_t kMaxContentKeyBytes = 1024;  // as the job keeps

std::string sizeText(std::uint64_t bytes)
{
    char buf[32];
    if (bytes >= (std::uint64_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / 1073741824.0);
    else if (bytes >= (std::uint64_t{1} << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
    else if (bytes >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
    else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    return buf;
}

void fail(DsortPreview& p, const std::string& why)
{
    p.willFail = true;
    p.warnings.push_back("the job will fail: " + why);
}

}  // namespace

void to_json(nlohmann::json& j, const DsortPreviewRecord& v)
{
    j = nlohmann::json{{"key", v.key}, {"shard", v.shard}, {"size", v.size}, {"files", v.files}};
}

void readFields(api::FieldReader& r, DsortPreviewRecord& v)
{
    r.required("key", v.key).required("shard", v.shard).required("size", v.size).required("files", v.files);
}

void to_json(nlohmann::json& j, const DsortPreviewShard& v)
{
    j = nlohmann::json{{"name", v.name}, {"target", v.target}, {"bytes", v.bytes}, {"records", v.records}};
}

void readFields(api::FieldReader& r, DsortPreviewShard& v)
{
    r.required("name", v.name).required("target", v.target).required("bytes", v.bytes).required("records", v.records);
}

void to_json(nlohmann::json& j, const DsortPreview& v)
{
    j = nlohmann::json{{"input_shards", v.inputShards},
                       {"found", v.found},
                       {"read", v.read},
                       {"missing", v.missing},
                       {"missing_count", v.missingCount},
                       {"sampled", v.sampled},
                       {"input_bytes", v.inputBytes},
                       {"records", v.records},
                       {"duplicates", v.duplicates},
                       {"first_records", v.firstRecords},
                       {"output_shards", v.outputShards},
                       {"output_bytes", v.outputBytes},
                       {"shards", v.shards},
                       {"warnings", v.warnings},
                       {"will_fail", v.willFail}};
}

void readFields(api::FieldReader& r, DsortPreview& v)
{
    r.required("input_shards", v.inputShards)
        .required("found", v.found)
        .required("read", v.read)
        .required("missing", v.missing)
        .required("missing_count", v.missingCount)
        .required("sampled", v.sampled)
        .required("input_bytes", v.inputBytes)
        .required("records", v.records)
        .required("duplicates", v.duplicates)
        .required("first_records", v.firstRecords)
        .required("output_shards", v.outputShards)
        .required("output_bytes", v.outputBytes)
        .required("shards", v.shards)
        .required("warnings", v.warnings)
        .required("will_fail", v.willFail);
}

void to_json(nlohmann::json& j, const DsortDryRun& v)
{
    j = nlohmann::json{{"dry_run", true}, {"spec", v.spec}, {"plan", v.plan}};
}

void readFields(api::FieldReader& r, DsortDryRun& v)
{
    bool dry = false;
    nlohmann::json spec;
    r.required("dry_run", dry).required("spec", spec).required("plan", v.plan);
    if (!r.ok()) return;
    if (!dry) return r.fail(r.pointerTo("dry_run"), "must be true");
    auto parsed = parseDsortSpec(spec);
    if (!parsed) return r.fail(r.pointerTo("spec"), parsed.error().message);
    v.spec = std::move(*parsed);
}

DsortPreview previewDsort(const DsortSpec& spec, const std::vector<DsortPreviewInput>& inputs, const std::string& ekm,
                          const std::vector<std::string>& targetIds)
{
    DsortPreview p;
    p.inputShards = inputs.size();
    const bool content = spec.algorithm.kind == DsortAlgorithmKind::Content;

    // The records, as the job's extract phase builds them.
    std::vector<DsortRecord> records;
    std::vector<std::set<std::string>> extensions;  // per record
    std::vector<std::string> oversize;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto& in = inputs[i];
        if (!in.found) {
            ++p.missingCount;
            if (p.missing.size() < DsortPreview::kMaxNames) p.missing.push_back(in.name);
            continue;
        }
        ++p.found;
        if (!in.read) continue;
        ++p.read;
        if (!in.error.empty()) {
            fail(p, "cannot read input shard " + spec.inputBck + "/" + in.name + ": " + in.error);
            continue;
        }
        std::uint64_t seq = 0;
        std::size_t m = 0;
        while (m < in.members.size()) {
            DsortRecord r;
            r.key = std::string(archive::wdsKey(in.members[m].name));
            r.shardIndex = i;
            r.seq = seq++;
            std::set<std::string> exts;
            bool hasKey = false;
            for (; m < in.members.size() && archive::wdsKey(in.members[m].name) == r.key; ++m) {
                const auto& mem = in.members[m];
                r.size += archive::tarMemberBytes(mem.name, mem.size);
                ++r.files;
                const auto ext = std::string(archive::wdsExtension(mem.name));
                exts.insert(ext);
                if (content && !hasKey && ext == spec.algorithm.extension && mem.content) {
                    r.contentKey = mem.content->substr(0, kMaxContentKeyBytes);
                    hasKey = true;
                }
            }
            if (content && !hasKey && !p.willFail) {
                fail(p, "record \"" + r.key + "\" of " + spec.inputBck + "/" + in.name + " has no " +
                            spec.algorithm.extension + " file to sort by");
            }
            if (spec.outputShardSize != 0 && r.size > spec.outputShardSize) oversize.push_back(r.key);
            p.inputBytes += r.size;
            records.push_back(std::move(r));
            extensions.push_back(std::move(exts));
        }
    }
    p.records = records.size();
    p.sampled = p.read < p.found;
    if (p.sampled) {
        p.warnings.push_back("sampled: the plan covers the first " + std::to_string(p.read) + " of " +
                             std::to_string(p.found) + " input shards (a dry run reads at most " +
                             std::to_string(DsortPreview::kMaxMembers) + " members); the job reads them all");
    }
    if (p.missingCount > 0) {
        const std::string what = std::to_string(p.missingCount) +
                                 " input shard(s) do not exist (first: " + spec.inputBck + "/" + p.missing.front() +
                                 ")";
        switch (spec.missingShards) {
        case DsortPolicy::Abort: fail(p, what + "; missing_shards is abort"); break;
        case DsortPolicy::Warn: p.warnings.push_back(what + "; the job skips them (missing_shards: warn)"); break;
        case DsortPolicy::Ignore: break;
        }
    }
    if (!oversize.empty()) {
        p.warnings.push_back(std::to_string(oversize.size()) + " record(s) are larger than output_shard_size (" +
                             sizeText(spec.outputShardSize) + "), first \"" + oversize.front() +
                             "\": each gets a shard of its own");
    }
    // Extensions most records have that some lack.
    if (!records.empty()) {
        std::map<std::string, std::uint64_t> having;
        for (const auto& e : extensions) {
            for (const auto& x : e) ++having[x];
        }
        for (const auto& [ext, n] : having) {
            if (n * 2 <= records.size() || n == records.size()) continue;
            std::string first;
            for (std::size_t i = 0; i < records.size() && first.empty(); ++i) {
                if (!extensions[i].count(ext)) first = records[i].key;
            }
            p.warnings.push_back(std::to_string(records.size() - n) + " record(s) have no " +
                                 (ext.empty() ? std::string("file without an extension") : ext) + " file (first \"" +
                                 first + "\"); " + std::to_string(n) + " have one");
        }
    }
    std::size_t dupCount = 0;
    const auto dups = duplicateKeys(records, 5, dupCount);
    p.duplicates = dupCount;
    if (dupCount > 0) {
        std::string list;
        for (const auto& d : dups) list += (list.empty() ? "\"" : ", \"") + d + "\"";
        const auto msg = std::to_string(dupCount) + " record key(s) appear more than once: " + list +
                         (dupCount > dups.size() ? ", ..." : "");
        if (spec.duplicatedRecords == DsortPolicy::Abort) fail(p, msg + " (duplicated_records: abort)");
        else if (spec.duplicatedRecords == DsortPolicy::Warn) p.warnings.push_back(msg);
    }
    if (records.empty()) {
        p.warnings.push_back("no records: the job writes no output shard");
        return p;
    }
    if (p.willFail && content) return p;  // records without keys cannot be ordered
    if (auto o = orderRecords(records, spec.algorithm); !o) {
        fail(p, o.error().message);
        return p;
    }
    api::Result<std::vector<DsortOutputShard>> shards = std::vector<DsortOutputShard>{};
    if (ekm.empty()) {
        shards = cutShards(records, spec);
    } else {
        auto map = parseEkm(ekm);
        if (!map) {
            fail(p, map.error().message);
            return p;
        }
        shards = placeByEkm(records, *map, spec);
    }
    if (!shards) {
        fail(p, shards.error().message);
        return p;
    }
    p.outputShards = shards->size();
    for (const auto& s : *shards) {
        p.outputBytes += s.bytes;
        if (p.shards.size() < DsortPreview::kMaxListedShards) {
            DsortPreviewShard out;
            out.name = s.name;
            if (!targetIds.empty()) {
                out.target = targetIds[api::hrwIndex(targetIds, api::objectUname(spec.outputBck, s.name))];
            }
            out.bytes = s.bytes;
            out.records = s.records.size();
            p.shards.push_back(std::move(out));
        }
        for (auto idx : s.records) {
            if (p.firstRecords.size() >= DsortPreview::kMaxFirstRecords) break;
            const auto& r = records[idx];
            p.firstRecords.push_back({r.key, inputs[r.shardIndex].name, r.size, r.files});
        }
    }
    return p;
}

}  // namespace tessera::spec
