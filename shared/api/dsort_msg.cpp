#include "dsort_msg.h"

#include "names.h"

namespace tessera::api {

void to_json(nlohmann::json& j, const DsortPeer& v) { j = nlohmann::json::array({v.id, v.url}); }

void from_json(const nlohmann::json& j, DsortPeer& v)
{
    if (!j.is_array() || j.size() != 2 || !j[0].is_string() || !j[1].is_string()) {
        throw nlohmann::json::other_error::create(501, "a peer is [id, url]", nullptr);
    }
    v.id = j[0].get<std::string>();
    v.url = j[1].get<std::string>();
}

void to_json(nlohmann::json& j, const DsortInput& v) { j = nlohmann::json::array({v.position, v.name}); }

void from_json(const nlohmann::json& j, DsortInput& v)
{
    if (!j.is_array() || j.size() != 2 || !j[0].is_number_unsigned() || !j[1].is_string()) {
        throw nlohmann::json::other_error::create(501, "an input is [position, name]", nullptr);
    }
    v.position = j[0].get<std::uint64_t>();
    v.name = j[1].get<std::string>();
}

void to_json(nlohmann::json& j, const DsortJobArgs& v)
{
    j = nlohmann::json{{"spec", v.spec},     {"peers", v.peers},   {"self", v.self},
                       {"sorter", v.sorter}, {"inputs", v.inputs}, {"ekm", v.ekm}};
}

void readFields(FieldReader& r, DsortJobArgs& v)
{
    r.required("spec", v.spec)
        .required("peers", v.peers)
        .required("self", v.self)
        .required("sorter", v.sorter)
        .optional("inputs", v.inputs)
        .optional("ekm", v.ekm);
    if (!r.ok()) return;
    if (v.peers.empty()) return r.fail(r.pointerTo("peers"), "must list the job's targets as [id, url]");
    if (v.self >= v.peers.size()) return r.fail(r.pointerTo("self"), "must be an index into peers");
    if (v.sorter >= v.peers.size()) return r.fail(r.pointerTo("sorter"), "must be an index into peers");
    for (std::size_t i = 0; i < v.inputs.size(); ++i) {
        if (auto st = validateObjectName(v.inputs[i].name); !st) {
            return r.fail(r.pointerTo("inputs") + "/" + std::to_string(i) + "/1", st.error().message);
        }
    }
}

void to_json(nlohmann::json& j, const DsortFailure& v) { j = nlohmann::json{{"target", v.target}, {"error", v.error}}; }

void readFields(FieldReader& r, DsortFailure& v) { r.required("target", v.target).required("error", v.error); }

nlohmann::json assignmentsToJson(const std::vector<DsortAssignment>& shards)
{
    auto out = nlohmann::json::array();
    for (const auto& s : shards) {
        auto recs = nlohmann::json::array();
        for (const auto& r : s.records) recs.push_back(nlohmann::json::array({r.owner, r.index, r.size}));
        out.push_back({{"name", s.name}, {"bytes", s.bytes}, {"records", std::move(recs)}});
    }
    return out;
}

Result<std::vector<DsortAssignment>> assignmentsFromJson(const nlohmann::json& j, std::size_t peers)
{
    const auto bad = [](const std::string& where) {
        return Error::badRequest("assign: " + where +
                                 ": an assignment is [{\"name\",\"bytes\",\"records\":[[owner,index,size],...]}]");
    };
    if (!j.is_array()) return bad("/");
    std::vector<DsortAssignment> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
        const auto& e = j[i];
        const std::string at = "/" + std::to_string(i);
        if (!e.is_object() || e.size() != 3 || !e.contains("name") || !e["name"].is_string() ||
            !e.contains("records") || !e["records"].is_array() ||
            !e.value("bytes", nlohmann::json()).is_number_unsigned()) {
            return bad(at);
        }
        DsortAssignment a;
        a.name = e["name"].get<std::string>();
        a.bytes = e["bytes"].get<std::uint64_t>();
        a.records.reserve(e["records"].size());
        for (std::size_t k = 0; k < e["records"].size(); ++k) {
            const auto& r = e["records"][k];
            if (!r.is_array() || r.size() != 3 || !r[0].is_number_unsigned() || !r[1].is_number_unsigned() ||
                !r[2].is_number_unsigned()) {
                return bad(at + "/records/" + std::to_string(k));
            }
            const auto owner = r[0].get<std::uint64_t>();
            if (owner >= peers) {
                return Error::badRequest("assign: " + at + "/records/" + std::to_string(k) + "/0: names target #" +
                                         std::to_string(owner) + " of " + std::to_string(peers));
            }
            a.records.push_back(
                {static_cast<std::uint32_t>(owner), r[1].get<std::uint64_t>(), r[2].get<std::uint64_t>()});
        }
        out.push_back(std::move(a));
    }
    return out;
}

}  // namespace tessera::api
