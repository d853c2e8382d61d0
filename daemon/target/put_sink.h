#pragma once
// The sink of an object PUT on a target (TargetApi::objectSink): the bytes
// go to a PutWriter; finish() commits them, a mirrored (or erasure-coded
// small) object's copies sent first under an intent record, an erasure-coded
// object's slices after, and answers with the object's metadata headers.

#include "object_store.h"

#include "api/object_meta.h"
#include "api/result.h"
#include "net/response.h"
#include "net/upload_sink.h"

#include <functional>
#include <memory>
#include <string>

namespace tessera::daemon::target {

// `withStamp`: the version stamp, for peers (HEAD and PUT answers); a GET
// leaves it out (one header less on the hot path). `aisLines`: the custom
// metadata as AIStore's targets send it, one "k=v" ais-custom-md line per
// entry (cmn/objattrs.go ToHeader), for clients; the other nodes (they call
// with the cluster key, the S3 front end among them) read one "k1=v1,k2=v2"
// line.
void addMetaHeaders(net::Response& r, const api::ObjectMeta& m, const std::string& selfId, bool withStamp,
                    bool aisLines);

// A mirrored object's copies, sent before the version is committed here
// (from the prepared work file): the owner never serves a version its
// holders lack. Sets `maybeSent` when a holder may have stored it although
// the call failed.
using BeforeCommit = std::function<api::Status(const api::ObjectMeta&, int fd, bool& maybeSent)>;
// Runs after a PUT committed here, before it is acknowledged: an erasure-
// coded object's slices (from the committed file's descriptor).
using AfterCommit = std::function<api::Status(const api::ObjectMeta&, int fd)>;

// What a PUT sends to other nodes around its commit here.
struct PutSinkHooks {
    BeforeCommit before;
    AfterCommit after;
    // After `before` failed once a holder took the version (or may
    // have): the holders are brought to this target's state at once, as
    // far as they can be reached (what is left stays a suspect).
    std::function<void()> reconcileNow;
    // With `before`: the store whose intent records cover the change.
    const ObjectStore* store = nullptr;
    std::string bucket;
    std::string name;
};

// `fromPeer`: a copy a peer sends (stored here, nothing asked of others).
// `aisLines`: the answer's custom metadata in AIStore's form (a client's PUT).
std::unique_ptr<net::UploadSink> makePutSink(std::unique_ptr<PutWriter> writer, std::string selfId, PutSinkHooks hooks,
                                             bool fromPeer, bool aisLines);

}  // namespace tessera::daemon::target
