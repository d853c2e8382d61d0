#include "ais_config.h"

namespace tessera::api {

namespace {

// The sections as separate wire parts (Go's nesting).
struct AuthWire {
    bool clientAuthRequired = false;
};
void readFields(FieldReader& r, AuthWire& v)
{
    r.required("client_auth_required", v.clientAuthRequired)
        .ignore("signature")  // the optional (omitempty) parts Tessera does not send
        .ignore("required_claims")
        .ignore("oidc")
        .ignore("intra_cluster");
}

// cmn.BackendConf marshals as its map of providers: none.
struct BackendWire {};
void readFields(FieldReader&, BackendWire&) {}

}  // namespace

void readFields(FieldReader& r, AisProxyConf& v)
{
    r.required("primary_url", v.primaryUrl)
        .required("original_url", v.originalUrl)
        .required("discovery_url", v.discoveryUrl)
        .required("non_electable", v.nonElectable);
}

void readFields(FieldReader& r, AisHttpConf& v)
{
    r.required("server_crt", v.serverCrt)
        .required("server_key", v.serverKey)
        .required("client_ca_tls", v.clientCa)
        .required("client_auth_tls", v.clientAuthTls)
        .required("domain_tls", v.domainTls)
        .required("idle_conn_time", v.idleConnTime)
        .required("backend_idle_conn_time", v.backendIdleConnTime)
        .required("idle_conns_per_host", v.idleConnsPerHost)
        .required("idle_conns", v.idleConns)
        .required("write_buffer_size", v.writeBufferSize)
        .required("read_buffer_size", v.readBufferSize)
        .required("use_https", v.useHttps)
        .required("skip_verify", v.skipVerify)
        .required("chunked_transfer", v.chunked)
        .ignore("pub");
}

namespace {

struct L4Wire {
    std::string proto;
    std::int64_t sndRcv = 0;
};
void readFields(FieldReader& r, L4Wire& v) { r.required("proto", v.proto).required("sndrcv_buf_size", v.sndRcv); }

}  // namespace

void readFields(FieldReader& r, AisNetConf& v)
{
    L4Wire l4;
    r.required("l4", l4).required("http", v.http).required("use_ipv6", v.useIpv6);
    v.l4Proto = l4.proto;
    v.sndRcvBufSize = l4.sndRcv;
}

void readFields(FieldReader& r, AisTimeoutConf& v)
{
    r.required("cplane_operation", v.cplaneOperation)
        .required("max_keepalive", v.maxKeepalive)
        .required("max_host_busy", v.maxHostBusy)
        .required("startup_time", v.startup)
        .required("join_startup_time", v.joinAtStartup)
        .required("send_file_time", v.sendFile)
        .ignore("ec_streams_time")
        .ignore("object_md")
        .ignore("cold_get_conflict");
}

void readFields(FieldReader& r, AisMemsysConf& v)
{
    r.required("min_free", v.minFree)
        .required("default_buf", v.defaultBuf)
        .required("to_gc", v.toGc)
        .required("hk_time", v.hkTime)
        .required("min_pct_total", v.minPctTotal)
        .required("min_pct_free", v.minPctFree);
}

namespace {

struct VersioningWire {
    bool enabled = false, validateWarmGet = false, sync = false;
};
void readFields(FieldReader& r, VersioningWire& v)
{
    r.required("enabled", v.enabled).required("validate_warm_get", v.validateWarmGet).required("synchronize", v.sync);
}
struct ResilverWire {
    bool enabled = false;
};
void readFields(FieldReader& r, ResilverWire& v) { r.required("enabled", v.enabled); }

struct FspWire {
    std::map<std::string, std::string> paths;
};
void readFields(FieldReader& r, FspWire& v) { r.optional("paths", v.paths); }
struct TestFspWire {
    std::string root;
    std::int64_t count = 0, instance = 0;
};
void readFields(FieldReader& r, TestFspWire& v)
{
    r.required("root", v.root).required("count", v.count).required("instance", v.instance);
}
struct HostNetWire {
    std::string hostname, intraControl, intraData;
    GoIntString port, portControl, portData;
};
void readFields(FieldReader& r, HostNetWire& v)
{
    r.required("hostname", v.hostname)
        .required("hostname_intra_control", v.intraControl)
        .required("hostname_intra_data", v.intraData)
        .required("port", v.port)
        .required("port_intra_control", v.portControl)
        .required("port_intra_data", v.portData);
}

void writeCluster(nlohmann::json& j, const AisClusterConfig& v)
{
    const auto& h = v.net.http;
    j["auth"] = {{"client_auth_required", v.clientAuthRequired}};
    j["backend"] = nlohmann::json::object();
    j["uuid"] = v.uuid;
    j["lastupdate_time"] = v.lastUpdated;
    j["proxy"] = {{"primary_url", v.proxy.primaryUrl},
                  {"original_url", v.proxy.originalUrl},
                  {"discovery_url", v.proxy.discoveryUrl},
                  {"non_electable", v.proxy.nonElectable}};
    j["net"] = {{"l4", {{"proto", v.net.l4Proto}, {"sndrcv_buf_size", v.net.sndRcvBufSize}}},
                {"http",
                 {{"server_crt", h.serverCrt},
                  {"server_key", h.serverKey},
                  {"client_ca_tls", h.clientCa},
                  {"client_auth_tls", h.clientAuthTls},
                  {"domain_tls", h.domainTls},
                  {"idle_conn_time", h.idleConnTime},
                  {"backend_idle_conn_time", h.backendIdleConnTime},
                  {"idle_conns_per_host", h.idleConnsPerHost},
                  {"idle_conns", h.idleConns},
                  {"write_buffer_size", h.writeBufferSize},
                  {"read_buffer_size", h.readBufferSize},
                  {"use_https", h.useHttps},
                  {"skip_verify", h.skipVerify},
                  {"chunked_transfer", h.chunked}}},
                {"use_ipv6", v.net.useIpv6}};
    j["timeout"] = {{"cplane_operation", v.timeout.cplaneOperation}, {"max_keepalive", v.timeout.maxKeepalive},
                    {"max_host_busy", v.timeout.maxHostBusy},        {"startup_time", v.timeout.startup},
                    {"join_startup_time", v.timeout.joinAtStartup},  {"send_file_time", v.timeout.sendFile}};
    j["memsys"] = {
        {"min_free", v.memsys.minFree}, {"default_buf", v.memsys.defaultBuf},    {"to_gc", v.memsys.toGc},
        {"hk_time", v.memsys.hkTime},   {"min_pct_total", v.memsys.minPctTotal}, {"min_pct_free", v.memsys.minPctFree}};
    j["features"] = v.features;
    j["config_version"] = v.version;
    j["versioning"] = {{"enabled", v.versioningEnabled},
                       {"validate_warm_get", v.versioningValidateWarmGet},
                       {"synchronize", v.versioningSync}};
    j["resilver"] = {{"enabled", v.resilverEnabled}};
}

void readCluster(FieldReader& r, AisClusterConfig& v)
{
    AuthWire auth;
    BackendWire backend;
    VersioningWire ver;
    ResilverWire res;
    r.required("auth", auth)
        .required("backend", backend)
        .required("uuid", v.uuid)
        .required("lastupdate_time", v.lastUpdated)
        .required("proxy", v.proxy)
        .required("net", v.net)
        .required("timeout", v.timeout)
        .required("memsys", v.memsys)
        .required("features", v.features)
        .required("config_version", v.version)
        .required("versioning", ver)
        .required("resilver", res);
    v.clientAuthRequired = auth.clientAuthRequired;
    v.versioningEnabled = ver.enabled;
    v.versioningValidateWarmGet = ver.validateWarmGet;
    v.versioningSync = ver.sync;
    v.resilverEnabled = res.enabled;
}

}  // namespace

void to_json(nlohmann::json& j, const AisClusterConfig& v)
{
    j = nlohmann::json::object();
    writeCluster(j, v);
}

void readFields(FieldReader& r, AisClusterConfig& v) { readCluster(r, v); }

void to_json(nlohmann::json& j, const AisConfig& v)
{
    j = nlohmann::json::object();
    j["fspaths"] = nlohmann::json::object();
    if (!v.fspaths.empty()) j["fspaths"]["paths"] = v.fspaths;
    j["confdir"] = v.confDir;
    j["log_dir"] = v.logDir;
    j["test_fspaths"] = {{"root", v.testFspRoot}, {"count", v.testFspCount}, {"instance", v.testFspInstance}};
    j["host_net"] = {{"hostname", v.hostname},
                     {"hostname_intra_control", v.hostnameIntraControl},
                     {"hostname_intra_data", v.hostnameIntraData},
                     {"port", v.port},
                     {"port_intra_control", v.portIntraControl},
                     {"port_intra_data", v.portIntraData}};
    writeCluster(j, v.cluster);
}

void readFields(FieldReader& r, AisConfig& v)
{
    FspWire fsp;
    TestFspWire test;
    HostNetWire host;
    r.required("fspaths", fsp)
        .required("confdir", v.confDir)
        .required("log_dir", v.logDir)
        .required("test_fspaths", test)
        .required("host_net", host);
    readCluster(r, v.cluster);
    v.fspaths = fsp.paths;
    v.testFspRoot = test.root;
    v.testFspCount = test.count;
    v.testFspInstance = test.instance;
    v.hostname = host.hostname;
    v.hostnameIntraControl = host.intraControl;
    v.hostnameIntraData = host.intraData;
    v.port = host.port;
    v.portIntraControl = host.portControl;
    v.portIntraData = host.portData;
}

AisClusterConfig aisClusterConfig(const AisConfigSource& s)
{
    AisClusterConfig c;
    c.clientAuthRequired = s.authEnabled;
    c.uuid = s.clusterUuid;
    c.proxy.primaryUrl = s.primaryUrl;
    c.proxy.originalUrl = s.primaryUrl;
    c.net.http.serverCrt = s.tlsCertFile;
    c.net.http.serverKey = s.tlsKeyFile;
    c.net.http.clientCa = s.tlsCaFile;
    c.net.http.useHttps = !s.tlsCertFile.empty();
    constexpr std::int64_t kMs = 1'000'000;
    c.timeout.cplaneOperation = formatGoDuration(s.peerTimeoutMs * kMs);
    c.timeout.maxKeepalive = formatGoDuration(s.keepaliveMaxMs * kMs);
    c.timeout.sendFile = formatGoDuration(s.ioTimeoutMs * kMs);
    return c;
}

AisConfig aisConfig(const AisConfigSource& s)
{
    AisConfig c;
    for (const auto& mp : s.mountpaths) c.fspaths.emplace(mp, "");
    c.confDir = s.dataDir;
    c.hostname = s.host;
    c.hostnameIntraControl = s.host;  // one network
    c.hostnameIntraData = s.host;
    c.port = {s.port};
    c.portIntraControl = {s.port};
    c.portIntraData = {s.port};
    c.cluster = aisClusterConfig(s);
    return c;
}

}  // namespace tessera::api
