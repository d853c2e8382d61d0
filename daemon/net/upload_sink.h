#pragma once
// Receives a streamed request body (object PUT). The session calls write()
// for each chunk on the connection's I/O thread (on a worker when
// writesBlock()), then finish() once on a worker thread. A sink destroyed without finish() must discard what it wrote.

#include "api/result.h"
#include "response.h"

#include <cstddef>

namespace tessera::daemon::net {

class UploadSink {
public:
    virtual ~UploadSink() = default;
    virtual api::Status write(const char* data, std::size_t size) = 0;
    virtual Response finish() = 0;
    // True when finish() never blocks, so the session may call it on the
    // connection's I/O thread instead of handing it to the worker pool.
    virtual bool finishesInline() const { return false; }
    // True when finish() stores what a peer sent and never waits on another
    // node: it runs on a pool of its own, so that two nodes whose workers all
    // wait for each other's answers (copies of mirrored objects) still get
    // those answers.
    virtual bool receivesFromPeer() const { return false; }
    // True when write() may block on another node (the S3 front end relaying
    // a body to a target): the session calls it on the worker pool, one call
    // at a time, and reads the next piece only after it returned.
    virtual bool writesBlock() const { return false; }
    // True when finish() spends its time waiting for the disk (fsync) and
    // never on another node: it runs on the commit pool, whose threads only
    // wait, so that many PUTs wait for their fsync at once (the filesystem
    // then commits them together) instead of as many as there are workers.
    virtual bool finishWaitsOnDisk() const { return false; }
};

}  // namespace tessera::daemon::net
