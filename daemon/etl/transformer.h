#pragma once
// One ETL on one target: the transformer process(es) of a spec and the
// calls that pass bytes through them.
//   io://    each transform() runs the executable once: the input on its
//            stdin, the result read from its stdout into an in-memory file;
//            at most pool_size at once (the others wait).
//   hpush:// one long-running HTTP server (port from {port} in argv or
//            TESSERA_ETL_PORT); transform() POSTs the bytes to it. A server
//            that dies is restarted with backoff.
//   hpull:// the same server; transform() GETs /<bucket>/<object> from it,
//            and the server reads the object from TESSERA_TARGET_URL.
// A result is complete or an error: exit status, crash, obj_timeout and
// max_output_size are checked before any byte is handed on.
//
// Thread safety: every public member may be called from any thread.

#include "etl_process.h"

#include "api/etl_msg.h"
#include "api/result.h"
#include "common/unique_fd.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace tessera::client {
class HttpClient;
}

namespace tessera::daemon::etl {

// What goes into a transformer: `length` bytes of `fd` from `offset`, or
// `bytes` when fd < 0. `bucket`/`name` name the object (the environment of
// an io:// process, the path of an hpush/hpull call); `wholeObject` is
// false for a shard member or an earlier stage's output (hpull cannot read
// those).
struct EtlInput {
    int fd = -1;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    std::string_view bytes;
    std::string bucket;
    std::string name;
    bool wholeObject = true;
    // Polled while an io:// process runs: true ends it at once (an aborted job).
    std::function<bool()> cancelled;
};

// The complete result, in an in-memory file.
struct EtlOutput {
    std::shared_ptr<UniqueFd> fd;
    std::uint64_t size = 0;
};

class Transformer {
public:
    struct Options {
        std::string binPath;  // resolved command[0]
        std::string workDir;  // the ETL's own scratch directory
        std::string host;     // where hpush/hpull servers listen (the target's address)
        std::string selfUrl;  // this target's public URL (hpull servers read from it)
        // On a TLS cluster, the CA of the nodes' certificates: given to the
        // transformer as TESSERA_CA_FILE so an hpull server can verify the
        // target it reads from. "" on a plain cluster.
        std::string caFile;
        std::string targetId;
        unsigned cores = 2;
        std::size_t logBytes = 64 << 10;  // stderr kept per transformer
        // An ETL event for the feed (a restart, a failure to start).
        std::function<void(const std::string& etl, const std::string& severity, const std::string& message)> onEvent;
    };

    Transformer(api::EtlSpec spec, Options options);
    ~Transformer();  // stop()
    Transformer(const Transformer&) = delete;
    Transformer& operator=(const Transformer&) = delete;

    // io: checks the executable; hpush/hpull: starts the server and waits
    // for GET /health to answer 200 (up to init_timeout). Blocks.
    api::Status start();
    // Kills every process of this ETL (as groups) and reaps them. Blocks
    // until they are gone.
    void stop();

    // The input through the transformer. `args`: etl_args of the request
    // (TESSERA_ETL_ARGS and {args} in argv for io://; a query parameter
    // for hpush/hpull). Errors: Unavailable (not running), Timeout
    // (obj_timeout), BadGateway-like Internal with the stderr tail
    // (non-zero exit, crash), TooLarge (max_output_size).
    api::Result<EtlOutput> transform(const EtlInput& in, const std::string& args);

    // hpull inline: where to send the client for bucket/name (with `query`).
    api::Result<std::string> pullUrl(const std::string& bucket, const std::string& name,
                                     const std::string& query) const;

    const api::EtlSpec& spec() const { return m_spec; }
    api::EtlTargetState state() const;
    std::string logs() const;
    bool running() const;

private:
    // The spawn every mode starts from: the executable, the command with
    // each `substitutions` key ("{port}", "{args}") replaced, the scrubbed
    // environment with the spec's env, TESSERA_ETL_NAME and
    // TESSERA_TARGET_URL, the scratch dir and the memory limit.
    SpawnSpec baseSpawn(const std::vector<std::pair<std::string, std::string>>& substitutions) const;
    api::Result<EtlOutput> runProcess(const EtlInput& in, const std::string& args);
    api::Result<EtlOutput> callServer(const EtlInput& in, const std::string& args);
    // io:// with "framing":"length": one object through a long-lived worker.
    api::Result<EtlOutput> runFramed(const EtlInput& in, const std::string& args);
    struct Worker {
        pid_t pid = 0;
        UniqueFd in, out, err, pidfd;
    };
    api::Result<std::unique_ptr<Worker>> startWorker();
    void dropWorker(std::unique_ptr<Worker> w);  // killed, reaped, its slot freed
    api::Status startServer();                   // spawn + health check; under m_serverMutex
    void supervise();                            // the server's watcher thread
    void appendLog(std::string_view text);
    void recordError(const std::string& what);
    api::Error failure(const std::string& what, const std::string& stderrTail) const;
    std::unique_ptr<client::HttpClient> takeClient();
    void giveClient(std::unique_ptr<client::HttpClient> c);

    const api::EtlSpec m_spec;
    const Options m_options;

    mutable std::mutex m_mutex;  // state, log, counters
    std::string m_stage = api::etl_stage::kStarting;
    std::string m_error;
    std::string m_log;  // ring: the newest logBytes
    std::deque<std::string> m_lastErrors;
    std::uint64_t m_objectsIn = 0, m_bytesIn = 0, m_bytesOut = 0, m_errors = 0, m_restarts = 0;

    // io:// pool
    std::mutex m_poolMutex;
    std::condition_variable m_poolCv;
    unsigned m_poolFree = 0;
    std::atomic<bool> m_stopping{false};
    std::mutex m_childrenMutex;
    std::set<pid_t> m_children;  // io:// processes running now

    // framed io:// workers (m_children holds their pids too)
    std::mutex m_workersMutex;
    std::condition_variable m_workersCv;
    std::vector<std::unique_ptr<Worker>> m_idle;
    unsigned m_workerCount = 0;
    // Workers outlive the call that needed them, but PR_SET_PDEATHSIG fires
    // when the *thread* that started a process ends: they are started by
    // this thread, which lives as long as the transformer.
    std::mutex m_spawnMutex;
    std::condition_variable m_spawnCv;
    std::deque<std::function<void()>> m_spawnQueue;
    bool m_spawnStop = false;
    std::thread m_spawner;

    // hpush/hpull server
    std::mutex m_serverMutex;
    pid_t m_serverPid = 0;
    UniqueFd m_serverStderr;
    std::atomic<unsigned> m_port{0};
    std::atomic<bool> m_serverUp{false};
    std::thread m_supervisor;
    UniqueFd m_wake;  // eventfd: stop() wakes the supervisor
    std::mutex m_clientsMutex;
    std::vector<std::unique_ptr<client::HttpClient>> m_clients;
};

}  // namespace tessera::daemon::etl
