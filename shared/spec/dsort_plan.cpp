#include "dsort_plan.h"

#include "api/names.h"
#include "archive/archive_writer.h"
#include "brace_template.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

namespace tessera::spec {

namespace {

std::uint64_t uniformBelow(std::mt19937_64& rng, std::uint64_t bound)
{
    const std::uint64_t limit =
        std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % bound;
    std::uint64_t x;
    do x = rng();
    while (x >= limit);
    return x % bound;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

bool keyLess(const DsortRecord& a, const DsortRecord& b)
{
    if (a.key != b.key) return a.key < b.key;
    if (a.shardIndex != b.shardIndex) return a.shardIndex < b.shardIndex;
    return a.seq < b.seq;
}

bool inputLess(const DsortRecord& a, const DsortRecord& b)
{
    if (a.shardIndex != b.shardIndex) return a.shardIndex < b.shardIndex;
    return a.seq < b.seq;
}

template <class T>
api::Status sortByContent(std::vector<DsortRecord>& records, bool decreasing, const char* typeName,
                          T (*parse)(std::string_view, bool&))
{
    std::vector<std::pair<T, std::size_t>> keys;
    keys.reserve(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        bool ok = false;
        T v = parse(trim(records[i].contentKey), ok);
        if (!ok) {
            return api::Error::badRequest("record \"" + records[i].key + "\": its content key \"" +
                                          records[i].contentKey.substr(0, 64) + "\" is not " + typeName);
        }
        keys.emplace_back(std::move(v), i);
    }
    std::sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
        if (a.first < b.first) return !decreasing;
        if (b.first < a.first) return decreasing;
        return keyLess(records[a.second], records[b.second]);
    });
    std::vector<DsortRecord> out;
    out.reserve(records.size());
    for (auto& [k, i] : keys) out.push_back(std::move(records[i]));
    records = std::move(out);
    return {};
}

std::int64_t parseInt(std::string_view s, bool& ok)
{
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    ok = !s.empty() && ec == std::errc() && p == s.data() + s.size();
    return v;
}

double parseFloat(std::string_view s, bool& ok)
{
    const std::string text(s);
    char* end = nullptr;
    const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
    ok = !text.empty() && end == text.c_str() + text.size() && !std::isnan(v);
    return v;
}

std::string parseString(std::string_view s, bool& ok)
{
    ok = true;
    return std::string(s);
}

// Accumulates records into shards cut by size or count.
class Cutter {
public:
    Cutter(std::uint64_t sizeBound, std::uint64_t countBound) : m_size(sizeBound), m_count(countBound) {}
    void add(std::size_t i, const DsortRecord& r)
    {
        const bool full = m_count > 0 ? m_cur.records.size() >= m_count : m_cur.bytes + r.size > m_size;
        if (!m_cur.records.empty() && full) cut();
        m_cur.records.push_back(i);
        m_cur.bytes += r.size;
    }
    std::vector<DsortOutputShard> finish()
    {
        cut();
        return std::move(m_shards);
    }

private:
    void cut()
    {
        if (m_cur.records.empty()) return;
        m_shards.push_back(std::move(m_cur));
        m_cur = DsortOutputShard{{}, {}, archive::kTarEndBytes};
    }
    std::uint64_t m_size;
    std::uint64_t m_count;
    DsortOutputShard m_cur{{}, {}, archive::kTarEndBytes};
    std::vector<DsortOutputShard> m_shards;
};

// "%d" / "%05d" in an EKM shard format: position, length, width.
struct Numbering {
    std::size_t pos = std::string::npos;
    std::size_t len = 0;
    int width = 0;
};

Numbering findNumbering(const std::string& format)
{
    Numbering n;
    for (std::size_t i = 0; i + 1 < format.size(); ++i) {
        if (format[i] != '%') continue;
        std::size_t j = i + 1;
        int width = 0;
        while (j < format.size() && std::isdigit(static_cast<unsigned char>(format[j]))) {
            width = width * 10 + (format[j] - '0');
            if (width > 20) return Numbering{std::string::npos, 0, -1};
            ++j;
        }
        if (j < format.size() && format[j] == 'd') return Numbering{i, j + 1 - i, width};
    }
    return n;
}

std::string numbered(const std::string& format, const Numbering& n, std::size_t i)
{
    if (n.pos == std::string::npos) return format;
    auto digits = std::to_string(i);
    if (static_cast<int>(digits.size()) < n.width)
        digits.insert(0, static_cast<std::size_t>(n.width) - digits.size(), '0');
    return format.substr(0, n.pos) + digits + format.substr(n.pos + n.len);
}

}  // namespace

api::Status orderRecords(std::vector<DsortRecord>& records, const DsortAlgorithm& a)
{
    switch (a.kind) {
    case DsortAlgorithmKind::None: std::sort(records.begin(), records.end(), inputLess); return {};
    case DsortAlgorithmKind::Alphanumeric:
        std::sort(records.begin(), records.end(), keyLess);
        if (a.decreasing) {
            // Decreasing by key; equal keys stay in input order.
            std::stable_sort(records.begin(), records.end(),
                             [](const DsortRecord& x, const DsortRecord& y) { return x.key > y.key; });
        }
        return {};
    case DsortAlgorithmKind::Shuffle: {
        if (!a.seed) return api::Error::badRequest("invalid dsort spec: /algorithm/seed: a shuffle needs a seed");
        std::sort(records.begin(), records.end(), keyLess);
        std::mt19937_64 rng(*a.seed);
        for (std::size_t i = records.size(); i > 1; --i) std::swap(records[i - 1], records[uniformBelow(rng, i)]);
        return {};
    }
    case DsortAlgorithmKind::Content:
        switch (a.keyType) {
        case ContentKeyType::Int: return sortByContent<std::int64_t>(records, a.decreasing, "an integer", parseInt);
        case ContentKeyType::Float: return sortByContent<double>(records, a.decreasing, "a number", parseFloat);
        case ContentKeyType::String: return sortByContent<std::string>(records, a.decreasing, "a string", parseString);
        }
    }
    return {};
}

std::vector<std::string> duplicateKeys(const std::vector<DsortRecord>& records, std::size_t limit, std::size_t& count)
{
    std::vector<std::string_view> keys;
    keys.reserve(records.size());
    for (const auto& r : records) keys.push_back(r.key);
    std::sort(keys.begin(), keys.end());
    std::vector<std::string> out;
    count = 0;
    for (std::size_t i = 1; i < keys.size(); ++i) {
        if (keys[i] != keys[i - 1] || (i >= 2 && keys[i] == keys[i - 2])) continue;
        ++count;
        if (out.size() < limit) out.emplace_back(keys[i]);
    }
    return out;
}

api::Result<std::vector<DsortOutputShard>> cutShards(const std::vector<DsortRecord>& ordered, const DsortSpec& spec)
{
    auto tmpl = BraceTemplate::parse(spec.outputFormat);
    if (!tmpl) return api::Error::badRequest("invalid dsort spec: /output_format: " + tmpl.error().message);
    Cutter cutter(spec.outputShardSize, spec.outputShardRecords);
    for (std::size_t i = 0; i < ordered.size(); ++i) cutter.add(i, ordered[i]);
    auto shards = cutter.finish();
    if (shards.size() > tmpl->count()) {
        return api::Error::badRequest("invalid dsort spec: /output_format: \"" + spec.outputFormat + "\" names " +
                                      std::to_string(tmpl->count()) + " shards but the records need " +
                                      std::to_string(shards.size()));
    }
    for (std::size_t i = 0; i < shards.size(); ++i) shards[i].name = tmpl->at(i) + spec.outputExtension;
    return shards;
}

api::Result<std::vector<EkmEntry>> parseEkm(std::string_view json)
{
    auto j = nlohmann::ordered_json::parse(json, nullptr, false);
    const std::string prefix = "invalid dsort spec: /ekm_file: ";
    if (j.is_discarded() || !j.is_object() || j.empty()) {
        return api::Error::badRequest(prefix + "must hold a JSON object {\"shard-%d\": [\"key regex\", ...], ...}");
    }
    std::vector<EkmEntry> out;
    for (const auto& [format, patterns] : j.items()) {
        EkmEntry e;
        e.format = format;
        const auto n = findNumbering(format);
        if (n.width < 0) return api::Error::badRequest(prefix + "\"" + format + "\": a %d width above 20");
        if (auto st = api::validateObjectName(numbered(format, n, 0)); !st || format.empty()) {
            return api::Error::badRequest(prefix + "\"" + format + "\" is not a valid shard name" +
                                          (st ? std::string() : ": " + st.error().message));
        }
        if (!patterns.is_array() || patterns.empty()) {
            return api::Error::badRequest(prefix + "\"" + format + "\": must map to a non-empty list of key regexes");
        }
        for (const auto& p : patterns) {
            if (!p.is_string())
                return api::Error::badRequest(prefix + "\"" + format + "\": every regex must be a string");
            try {
                e.regexes.emplace_back(p.get<std::string>(), std::regex::ECMAScript);
            } catch (const std::regex_error& err) {
                return api::Error::badRequest(prefix + "\"" + format + "\": \"" + p.get<std::string>() +
                                              "\" is not a valid regular expression: " + err.what());
            }
            e.patterns.push_back(p.get<std::string>());
        }
        out.push_back(std::move(e));
    }
    return out;
}

api::Result<std::vector<DsortOutputShard>> placeByEkm(const std::vector<DsortRecord>& ordered,
                                                      const std::vector<EkmEntry>& ekm, const DsortSpec& spec)
{
    std::vector<std::vector<std::size_t>> groups(ekm.size());
    for (std::size_t i = 0; i < ordered.size(); ++i) {
        bool placed = false;
        for (std::size_t g = 0; g < ekm.size() && !placed; ++g) {
            for (const auto& re : ekm[g].regexes) {
                if (std::regex_search(ordered[i].key, re)) {
                    groups[g].push_back(i);
                    placed = true;
                    break;
                }
            }
        }
        if (!placed) {
            return api::Error::badRequest("record \"" + ordered[i].key + "\" matches no entry of the ekm_file " +
                                          spec.ekmFile);
        }
    }
    std::vector<DsortOutputShard> out;
    for (std::size_t g = 0; g < ekm.size(); ++g) {
        if (groups[g].empty()) continue;
        const auto n = findNumbering(ekm[g].format);
        std::vector<DsortOutputShard> shards;
        if (n.pos == std::string::npos) {
            DsortOutputShard one{{}, {}, archive::kTarEndBytes};
            for (auto i : groups[g]) {
                one.records.push_back(i);
                one.bytes += ordered[i].size;
            }
            shards.push_back(std::move(one));
        } else {
            Cutter cutter(spec.outputShardSize, spec.outputShardRecords);
            for (auto i : groups[g]) cutter.add(i, ordered[i]);
            shards = cutter.finish();
        }
        for (std::size_t k = 0; k < shards.size(); ++k) {
            shards[k].name = numbered(ekm[g].format, n, k) + spec.outputExtension;
            out.push_back(std::move(shards[k]));
        }
    }
    return out;
}

nlohmann::json recordsToJson(const std::vector<DsortRecord>& records)
{
    auto out = nlohmann::json::array();
    for (const auto& r : records) {
        out.push_back(
            nlohmann::json::array({r.key, r.contentKey, r.owner, r.index, r.shardIndex, r.seq, r.size, r.files}));
    }
    return out;
}

api::Result<std::vector<DsortRecord>> recordsFromJson(const nlohmann::json& j)
{
    if (!j.is_array()) return api::Error::badRequest("records must be a JSON array");
    std::vector<DsortRecord> out;
    out.reserve(j.size());
    for (const auto& e : j) {
        if (!e.is_array() || e.size() != 8 || !e[0].is_string() || !e[1].is_string()) {
            return api::Error::badRequest("a record must be [key, content_key, owner, index, shard, seq, size, files]");
        }
        for (std::size_t k = 2; k < 8; ++k) {
            if (!e[k].is_number_unsigned())
                return api::Error::badRequest("a record's numbers must be unsigned integers");
        }
        DsortRecord r;
        r.key = e[0].get<std::string>();
        r.contentKey = e[1].get<std::string>();
        r.owner = e[2].get<std::uint32_t>();
        r.index = e[3].get<std::uint64_t>();
        r.shardIndex = e[4].get<std::uint64_t>();
        r.seq = e[5].get<std::uint64_t>();
        r.size = e[6].get<std::uint64_t>();
        r.files = e[7].get<std::uint32_t>();
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace tessera::spec
