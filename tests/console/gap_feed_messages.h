#pragma once
// Feed messages for the gap-detection test (kept out of the Qt Test source:
// moc does not parse raw string literals).

namespace tessera::console::test {

inline constexpr const char* kGapSnapshot =
    R"({"type":"snapshot","seq":1,"ts":1,"data":{"smap":{"version":7,"uuid":"u","primary":{"daemon_id":"p","daemon_type":"proxy","public_net":{"node_ip_addr":"127.0.0.1","daemon_port":1,"direct_url":"http://127.0.0.1:1"}},"pmap":{},"tmap":{}},"bmd_version":1,"buckets":[],"jobs":[],"metrics":{},"events":[]}})";
inline constexpr const char* kGapEventSeq2 =
    R"({"type":"event","seq":2,"ts":2,"data":{"ts":2,"severity":"info","kind":"node_joined","node":"t1","message":"m"}})";
inline constexpr const char* kGapEventSeq4 =
    R"({"type":"event","seq":4,"ts":4,"data":{"ts":4,"severity":"info","kind":"node_joined","node":"t2","message":"m"}})";

}  // namespace tessera::console::test
