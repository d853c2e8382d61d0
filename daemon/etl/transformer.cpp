#include "transformer.h"

#include "api/http_error.h"
#include "api/uri.h"
#include "client/http_client.h"
#include "common/fd_io.h"
#include "common/log.h"
#include "etl_process.h"
#include "transformer_io.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <future>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>

namespace tessera::daemon::etl {

namespace {

using namespace transformer_detail;
constexpr std::size_t kLastErrors = 16;

api::Result<unsigned> freePort(const std::string& host)
{
    UniqueFd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s.valid()) return errnoError(errno, "socket");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return errnoError(errno, "bind");
    socklen_t len = sizeof a;
    if (::getsockname(s.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0) return errnoError(errno, "getsockname");
    return static_cast<unsigned>(ntohs(a.sin_port));
}

}  // namespace

Transformer::Transformer(api::EtlSpec spec, Options options) : m_spec(std::move(spec)), m_options(std::move(options))
{
    m_poolFree = m_spec.poolSize != 0 ? m_spec.poolSize : std::max(2u, 2 * m_options.cores);
    m_wake = UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (m_spec.framed) {
        m_spawner = std::thread([this] {
            std::unique_lock lock(m_spawnMutex);
            while (true) {
                m_spawnCv.wait(lock, [this] { return m_spawnStop || !m_spawnQueue.empty(); });
                if (m_spawnQueue.empty()) return;
                auto task = std::move(m_spawnQueue.front());
                m_spawnQueue.pop_front();
                lock.unlock();
                task();
                lock.lock();
            }
        });
    }
}

Transformer::~Transformer() { stop(); }

bool Transformer::running() const
{
    std::lock_guard lock(m_mutex);
    return m_stage == api::etl_stage::kRunning;
}

api::Status Transformer::start()
{
    if (m_spec.communication == api::EtlComm::Io) {
        std::lock_guard lock(m_mutex);
        m_stage = api::etl_stage::kRunning;
        return {};
    }
    api::Status st;
    {
        std::lock_guard lock(m_serverMutex);
        st = startServer();
    }
    std::lock_guard lock(m_mutex);
    if (!st) {
        m_stage = api::etl_stage::kError;
        m_error = st.error().message;
        return st;
    }
    m_stage = api::etl_stage::kRunning;
    m_error.clear();
    if (!m_supervisor.joinable()) m_supervisor = std::thread([this] { supervise(); });
    return {};
}

SpawnSpec Transformer::baseSpawn(const std::vector<std::pair<std::string, std::string>>& substitutions) const
{
    SpawnSpec sp;
    sp.path = m_options.binPath;
    for (auto a : m_spec.command) {
        for (const auto& [from, to] : substitutions) a = replaceAll(std::move(a), from, to);
        sp.argv.push_back(std::move(a));
    }
    sp.env = baseEnvironment(m_options.workDir);
    for (const auto& [k, v] : m_spec.env) sp.env[k] = v;
    sp.env["TESSERA_ETL_NAME"] = m_spec.name;
    sp.env["TESSERA_TARGET_URL"] = m_options.selfUrl;
    if (!m_options.caFile.empty()) sp.env["TESSERA_CA_FILE"] = m_options.caFile;
    sp.cwd = m_options.workDir;
    sp.memoryLimit = m_spec.memoryLimit;
    return sp;
}

api::Status Transformer::startServer()
{
    auto port = freePort(m_options.host);
    if (!port) return port.error();
    const std::string portText = std::to_string(*port);
    SpawnSpec sp = baseSpawn({{"{port}", portText}, {"{host}", m_options.host}});
    sp.env["TESSERA_ETL_PORT"] = portText;
    sp.env["TESSERA_ETL_HOST"] = m_options.host;
    int errPipe[2];
    if (::pipe2(errPipe, O_CLOEXEC) != 0) return errnoError(errno, "cannot create a pipe");
    UniqueFd errRead(errPipe[0]), errWrite(errPipe[1]);
    sp.stderrFd = errWrite.get();
    sp.stdoutFd = errWrite.get();  // a server's stdout is a log too
    auto pid = spawn(sp);
    if (!pid) return pid.error();
    errWrite.reset();
    setNonBlocking(errRead.get());
    m_serverPid = *pid;
    m_serverStderr = std::move(errRead);
    m_port = *port;
    auto pidfd = openPidFd(*pid);
    // Health: GET /health answers 200 before init_timeout, and the process lives.
    client::HttpClient::Options o;
    o.connectTimeout = std::chrono::milliseconds(500);
    o.ioTimeout = std::chrono::milliseconds(2000);
    o.followRedirects = false;
    o.retriesOn503 = 0;
    client::HttpClient http(o);
    const auto deadline = Clock::now() + std::chrono::milliseconds(m_spec.initTimeoutMs);
    const std::string url = "http://" + m_options.host + ":" + portText + "/health";
    std::string lastProblem = "no answer yet";
    char buf[4096];
    while (true) {
        for (ssize_t n; (n = ::read(m_serverStderr.get(), buf, sizeof buf)) > 0;) appendLog({buf, std::size_t(n)});
        if (pidfd) {
            pollfd p{pidfd->get(), POLLIN, 0};
            if (::poll(&p, 1, 0) == 1) {
                int status = 0;
                ::waitpid(*pid, &status, 0);
                killGroup(*pid);
                m_serverPid = 0;
                return api::Error::badGateway("etl " + m_spec.name + ": the transformer " + describeExit(status) +
                                                  " before it answered GET /health",
                                              tailOf(logs(), kTailBytes));
            }
        }
        auto r = http.send(client::Method::Get, url);
        if (r && r->status == 200) break;
        lastProblem = r ? "GET /health answered " + std::to_string(r->status) : r.error().message;
        if (Clock::now() >= deadline) {
            killGroup(*pid);
            int status = 0;
            ::waitpid(*pid, &status, 0);
            m_serverPid = 0;
            return api::Error{api::ErrorKind::Timeout,
                              "etl " + m_spec.name + ": the transformer did not become healthy within init_timeout (" +
                                  api::formatDurationMs(m_spec.initTimeoutMs) + "): " + lastProblem,
                              tailOf(logs(), kTailBytes)};
        }
        pollfd p{pidfd ? pidfd->get() : -1, POLLIN, 0};
        ::poll(&p, 1, 50);
    }
    m_serverUp = true;
    return {};
}

void Transformer::supervise()
{
    auto backoff = std::chrono::milliseconds(200);
    char buf[4096];
    while (!m_stopping) {
        pid_t pid;
        int errFd;
        {
            std::lock_guard lock(m_serverMutex);
            pid = m_serverPid;
            errFd = m_serverStderr.get();
        }
        auto pidfd = pid > 0 ? openPidFd(pid) : api::Result<UniqueFd>(api::Error::unavailable("no server"));
        bool exited = pid <= 0;
        Clock::time_point upSince = Clock::now();
        while (!exited && !m_stopping) {
            pollfd fds[3] = {{m_wake.get(), POLLIN, 0}, {pidfd ? pidfd->get() : -1, POLLIN, 0}, {errFd, POLLIN, 0}};
            if (::poll(fds, 3, 1000) < 0 && errno != EINTR) break;
            if (fds[0].revents) break;
            if (fds[2].revents) {
                ssize_t n;
                while ((n = ::read(errFd, buf, sizeof buf)) > 0) appendLog({buf, std::size_t(n)});
                if (n == 0) errFd = -1;
            }
            if (fds[1].revents) exited = true;
        }
        if (m_stopping) break;
        std::string why = "the transformer server could not be started";
        if (pid > 0) {
            int status = 0;
            ::waitpid(pid, &status, 0);
            killGroup(pid);
            m_serverUp = false;
            why = "the transformer server " + describeExit(status);
        }
        if (Clock::now() - upSince > std::chrono::seconds(30)) backoff = std::chrono::milliseconds(200);
        {
            std::lock_guard lock(m_mutex);
            ++m_restarts;
            m_error = why + "; restarting in " + api::formatDurationMs(backoff.count());
            m_stage = api::etl_stage::kStarting;
        }
        recordError(why);
        logWarn("etl ", m_spec.name, ": ", why, "; restarting");
        if (m_options.onEvent) m_options.onEvent(m_spec.name, "warning", why + "; restarting");
        pollfd w{m_wake.get(), POLLIN, 0};
        ::poll(&w, 1, static_cast<int>(backoff.count()));
        if (m_stopping) break;
        backoff = std::min(backoff * 2, std::chrono::milliseconds(10000));
        api::Status st;
        {
            std::lock_guard lock(m_serverMutex);
            m_serverPid = 0;
            st = startServer();
        }
        std::lock_guard lock(m_mutex);
        if (st) {
            m_stage = api::etl_stage::kRunning;
        } else {
            m_error = st.error().message;
        }
    }
}

void Transformer::stop()
{
    m_stopping = true;
    m_poolCv.notify_all();
    if (m_wake.valid()) {
        const std::uint64_t one = 1;
        [[maybe_unused]] auto n = ::write(m_wake.get(), &one, sizeof one);
    }
    if (m_supervisor.joinable()) m_supervisor.join();
    {
        std::lock_guard lock(m_spawnMutex);
        m_spawnStop = true;  // queued spawns still run: their callers wait for them
    }
    m_spawnCv.notify_all();
    if (m_spawner.joinable()) m_spawner.join();
    {
        std::lock_guard lock(m_serverMutex);
        if (m_serverPid > 0) {
            killGroup(m_serverPid);
            int status = 0;
            while (::waitpid(m_serverPid, &status, 0) < 0 && errno == EINTR) {
            }
            m_serverPid = 0;
        }
        m_serverUp = false;
    }
    {
        std::vector<std::unique_ptr<Worker>> idle;
        {
            std::lock_guard lock(m_workersMutex);
            idle.swap(m_idle);
        }
        m_workersCv.notify_all();
        for (auto& w : idle) dropWorker(std::move(w));
    }
    {
        // io:// processes: killed here, reaped by the calls that started them.
        std::lock_guard lock(m_childrenMutex);
        for (pid_t p : m_children) killGroup(p);
    }
    while (true) {
        {
            std::lock_guard lock(m_childrenMutex);
            if (m_children.empty()) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::lock_guard lock(m_mutex);
    if (m_stage != api::etl_stage::kError) m_stage = api::etl_stage::kStopped;
}

void Transformer::appendLog(std::string_view text)
{
    std::lock_guard lock(m_mutex);
    m_log.append(text);
    if (m_log.size() > m_options.logBytes) m_log.erase(0, m_log.size() - m_options.logBytes);
}

void Transformer::recordError(const std::string& what)
{
    std::lock_guard lock(m_mutex);
    ++m_errors;
    m_lastErrors.push_back(what.substr(0, 2048));
    while (m_lastErrors.size() > kLastErrors) m_lastErrors.pop_front();
}

api::Error Transformer::failure(const std::string& what, const std::string& stderrTail) const
{
    std::string msg = "etl " + m_spec.name + ": " + what;
    if (!stderrTail.empty()) msg += "; stderr: " + tailOf(stderrTail, kTailBytes);
    return api::Error::badGateway(msg);
}

std::string Transformer::logs() const
{
    std::lock_guard lock(m_mutex);
    return m_log;
}

api::EtlTargetState Transformer::state() const
{
    std::lock_guard lock(m_mutex);
    api::EtlTargetState s;
    s.name = m_spec.name;
    s.target = m_options.targetId;
    s.stage = m_stage;
    s.error = m_error;
    s.pid = m_serverPid;
    s.port = m_port;
    s.objectsIn = m_objectsIn;
    s.bytesIn = m_bytesIn;
    s.bytesOut = m_bytesOut;
    s.errors = m_errors;
    s.restarts = m_restarts;
    s.lastErrors.assign(m_lastErrors.begin(), m_lastErrors.end());
    return s;
}

api::Result<EtlOutput> Transformer::transform(const EtlInput& in, const std::string& args)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stage == api::etl_stage::kStopped) {
            return api::Error::conflict("etl " + m_spec.name + " is stopped (start it: POST /v1/etl/" + m_spec.name +
                                        "/start)");
        }
    }
    auto out = m_spec.communication != api::EtlComm::Io ? callServer(in, args)
               : m_spec.framed                          ? runFramed(in, args)
                                                        : runProcess(in, args);
    {
        std::lock_guard lock(m_mutex);
        ++m_objectsIn;
        m_bytesIn += in.fd >= 0 ? in.length : in.bytes.size();
        if (out) m_bytesOut += out->size;
    }
    if (!out) recordError((in.bucket.empty() ? "" : in.bucket + "/" + in.name + ": ") + out.error().message);
    return out;
}

api::Result<EtlOutput> Transformer::runProcess(const EtlInput& in, const std::string& args)
{
    const auto deadline = Clock::now() + std::chrono::milliseconds(m_spec.objTimeoutMs);
    {
        std::unique_lock lock(m_poolMutex);
        if (!m_poolCv.wait_until(lock, deadline, [this] { return m_poolFree > 0 || m_stopping.load(); })) {
            return api::Error::timeout("etl " + m_spec.name + ": every one of its " + std::to_string(m_spec.poolSize) +
                                       " transformer slots stayed busy for obj_timeout");
        }
        if (m_stopping) return api::Error::unavailable("etl " + m_spec.name + " is stopping");
        --m_poolFree;
    }
    struct Release {
        Transformer* t;
        ~Release()
        {
            {
                std::lock_guard lock(t->m_poolMutex);
                ++t->m_poolFree;
            }
            t->m_poolCv.notify_one();
        }
    } release{this};

    auto pipes = childPipes();
    if (!pipes) return pipes.error();
    auto& [inR, inW, outR, outW, errR, errW] = *pipes;

    SpawnSpec sp = baseSpawn({{"{args}", args}});
    sp.env["TESSERA_ETL_ARGS"] = args;
    if (!in.bucket.empty()) sp.env["TESSERA_OBJECT"] = in.bucket + "/" + in.name;
    sp.cpuSeconds = static_cast<std::uint64_t>(m_spec.objTimeoutMs / 1000 + 1);
    sp.stdinFd = inR.get();
    sp.stdoutFd = outW.get();
    sp.stderrFd = errW.get();
    auto pid = spawn(sp);
    if (!pid) return failure(pid.error().message + ": " + pid.error().causedBy, {});
    inR.reset();
    outW.reset();
    errW.reset();
    {
        std::lock_guard lock(m_childrenMutex);
        m_children.insert(*pid);
    }
    struct Reap {
        Transformer* t;
        pid_t pid;
        int status = 0;
        bool reaped = false;
        void wait()
        {
            if (reaped) return;
            killGroup(pid);  // anything it left behind in its group
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            reaped = true;
        }
        ~Reap()
        {
            if (!reaped) {
                killGroup(pid);
                wait();
            }
            std::lock_guard lock(t->m_childrenMutex);
            t->m_children.erase(pid);
        }
    } reap{this, *pid};
    auto pidfd = openPidFd(*pid);
    if (!pidfd) return pidfd.error();
    setNonBlocking(inW.get());
    setNonBlocking(outR.get());
    setNonBlocking(errR.get());

    auto memfd = makeOutputFile("etl-" + m_spec.name);
    if (!memfd) return memfd.error();
    OutputBuffer output{std::move(memfd.value()), 0, m_spec.maxOutputSize};

    const std::uint64_t inLen = in.fd >= 0 ? in.length : in.bytes.size();
    std::uint64_t inDone = 0;
    std::string chunk;
    std::size_t chunkPos = 0;
    std::string errText;
    char buf[65536];
    bool outEof = false, errEof = false, exited = false;
    if (inLen == 0) inW.reset();
    while (!(outEof && errEof && exited)) {
        pollfd fds[4] = {{inW.valid() ? inW.get() : -1, POLLOUT, 0},
                         {outEof ? -1 : outR.get(), POLLIN, 0},
                         {errEof ? -1 : errR.get(), POLLIN, 0},
                         {exited ? -1 : pidfd->get(), POLLIN, 0}};
        const int left = msLeft(deadline);
        if (left == 0) {
            return api::Error{api::ErrorKind::Timeout,
                              "etl " + m_spec.name + ": no result within obj_timeout (" +
                                  api::formatDurationMs(m_spec.objTimeoutMs) + ")",
                              tailOf(errText, kTailBytes)};
        }
        // Exited but a pipe is still open (something it started holds it):
        // a short grace, then the group is killed.
        int wait = exited ? std::min(left, 200) : left;
        if (in.cancelled) {
            if (in.cancelled())
                return api::Error::unavailable("etl " + m_spec.name + ": cancelled (the job was aborted)");
            wait = std::min(wait, 100);
        }
        const int n = ::poll(fds, 4, wait);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errnoError(errno, "poll");
        }
        if (n == 0 && exited) {
            killGroup(*pid);
            outEof = errEof = true;
            break;
        }
        if (inW.valid() && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
            if (chunkPos == chunk.size()) {
                const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, inLen - inDone));
                if (in.fd >= 0) {
                    chunk.resize(want);
                    const int e = preadExact(in.fd, chunk.data(), want, in.offset + inDone);
                    if (e != 0) return errnoError(e == kEndOfFile ? EIO : e, "cannot read the input");
                } else {
                    chunk.assign(in.bytes.substr(inDone, want));
                }
                chunkPos = 0;
            }
            const ssize_t w = ::write(inW.get(), chunk.data() + chunkPos, chunk.size() - chunkPos);
            if (w > 0) {
                chunkPos += static_cast<std::size_t>(w);
                if (chunkPos == chunk.size()) {
                    inDone += chunk.size();
                    chunk.clear();
                    chunkPos = 0;
                    if (inDone == inLen) inW.reset();
                }
            } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
                inW.reset();  // EPIPE: it stopped reading; its exit status decides
            }
        }
        if (!outEof && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t r = ::read(outR.get(), buf, sizeof buf);
            if (r > 0) {
                if (!output.write(buf, static_cast<std::size_t>(r))) {
                    if (output.overflow) {
                        return api::Error{api::ErrorKind::BadGateway,
                                          "etl " + m_spec.name + ": the transformer wrote more than max_output_size (" +
                                              std::to_string(m_spec.maxOutputSize) + " bytes)",
                                          tailOf(errText, kTailBytes)};
                    }
                    return errnoError(EIO, "cannot buffer the output");
                }
            } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                outEof = true;
            }
        }
        if (!errEof && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t r = ::read(errR.get(), buf, sizeof buf);
            if (r > 0) {
                errText.append(buf, static_cast<std::size_t>(r));
                if (errText.size() > 4 * kTailBytes) errText.erase(0, errText.size() - 2 * kTailBytes);
                appendLog({buf, static_cast<std::size_t>(r)});
            } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                errEof = true;
            }
        }
        if (!exited && (fds[3].revents & POLLIN)) exited = true;
    }
    reap.wait();
    if (m_stopping) return api::Error::unavailable("etl " + m_spec.name + " stopped during the call");
    if (!WIFEXITED(reap.status) || WEXITSTATUS(reap.status) != 0) {
        return failure("the transformer " + describeExit(reap.status), errText);
    }
    return EtlOutput{std::make_shared<UniqueFd>(std::move(output.fd)), output.size};
}

std::unique_ptr<client::HttpClient> Transformer::takeClient()
{
    {
        std::lock_guard lock(m_clientsMutex);
        if (!m_clients.empty()) {
            auto c = std::move(m_clients.back());
            m_clients.pop_back();
            return c;
        }
    }
    client::HttpClient::Options o;
    o.connectTimeout = std::chrono::milliseconds(2000);
    o.ioTimeout = std::chrono::milliseconds(m_spec.objTimeoutMs);
    o.followRedirects = false;
    o.retriesOn503 = 0;
    return std::make_unique<client::HttpClient>(o);
}

void Transformer::giveClient(std::unique_ptr<client::HttpClient> c)
{
    std::lock_guard lock(m_clientsMutex);
    if (m_clients.size() < 64) m_clients.push_back(std::move(c));
}

api::Result<std::string> Transformer::pullUrl(const std::string& bucket, const std::string& name,
                                              const std::string& query) const
{
    if (!m_serverUp) return api::Error::unavailable("etl " + m_spec.name + ": the transformer server is restarting");
    return "http://" + m_options.host + ":" + std::to_string(m_port.load()) + "/" + api::percentEncode(bucket) + "/" +
           api::percentEncode(name, true) + (query.empty() ? "" : "?" + query);
}

api::Result<EtlOutput> Transformer::callServer(const EtlInput& in, const std::string& args)
{
    if (!m_serverUp) {
        return api::Error::unavailable("etl " + m_spec.name + ": the transformer server is not up (restarting)");
    }
    const bool pull = m_spec.communication == api::EtlComm::HPull;
    if (pull && !in.wholeObject) {
        return api::Error::badRequest("etl " + m_spec.name +
                                      ": hpull:// transformers read whole objects by name; shard members and "
                                      "pipeline stages after the first need io:// or hpush://");
    }
    api::QueryMap q;
    if (!args.empty()) q["etl_args"] = args;
    auto url = pullUrl(in.bucket.empty() ? "_" : in.bucket, in.name.empty() ? "_" : in.name, api::buildQuery(q));
    if (!url) return url.error();
    client::Body body;
    if (!pull) {
        std::string bytes;
        if (in.fd >= 0) {
            bytes.resize(in.length);
            const int e = preadExact(in.fd, bytes.data(), in.length, in.offset);
            if (e != 0) return errnoError(e == kEndOfFile ? EIO : e, "cannot read the input");
        } else {
            bytes.assign(in.bytes);
        }
        body = client::Body::string(std::move(bytes));
    }
    auto memfd = makeOutputFile("etl-" + m_spec.name);
    if (!memfd) return memfd.error();
    OutputBuffer output{std::move(memfd.value()), 0, m_spec.maxOutputSize};
    const client::Sink sink = [&output](const char* p, std::size_t n) { return output.write(p, n); };
    auto http = takeClient();
    auto r = http->send(pull ? client::Method::Get : client::Method::Post, *url, body,
                        {{"Content-Type", "application/octet-stream"}}, &sink);
    if (output.overflow) {
        return api::Error::badGateway("etl " + m_spec.name + ": the transformer wrote more than max_output_size (" +
                                      std::to_string(m_spec.maxOutputSize) + " bytes)");
    }
    if (!r) {
        if (r.kind() == api::ErrorKind::Timeout) {
            return api::Error{api::ErrorKind::Timeout,
                              "etl " + m_spec.name + ": no result within obj_timeout (" +
                                  api::formatDurationMs(m_spec.objTimeoutMs) + ")",
                              {}};
        }
        return failure("the transformer server did not answer: " + r.error().message, tailOf(logs(), kTailBytes));
    }
    giveClient(std::move(http));
    if (!r->isSuccess()) {
        return failure(
            "the transformer answered HTTP " + std::to_string(r->status) + ": " + api::firstLine(r->body, 300), {});
    }
    return EtlOutput{std::make_shared<UniqueFd>(std::move(output.fd)), output.size};
}

}  // namespace tessera::daemon::etl
