// The framed io:// mode: long-lived transformer workers, each reading
// length-prefixed objects on stdin and answering length-prefixed results
// (docs/etl.md, "framing"), up to pool_size per target.
#include "transformer.h"

#include "common/log.h"
#include "etl_process.h"
#include "transformer_io.h"

#include <cerrno>
#include <future>
#include <poll.h>
#include <sys/wait.h>
#include <thread>

namespace tessera::daemon::etl {

using namespace transformer_detail;

api::Result<std::unique_ptr<Transformer::Worker>> Transformer::startWorker()
{
    auto pipes = childPipes();
    if (!pipes) return pipes.error();
    auto& [inR, inW, outR, outW, errR, errW] = *pipes;
    SpawnSpec sp = baseSpawn({{"{args}", ""}});  // a worker's arguments come with each object
    sp.env["TESSERA_ETL_FRAMING"] = "length";
    sp.stdinFd = inR.get();
    sp.stdoutFd = outW.get();
    sp.stderrFd = errW.get();
    // Started by the spawner thread (see m_spawner), waited for here.
    std::promise<api::Result<pid_t>> promise;
    auto future = promise.get_future();
    {
        std::lock_guard lock(m_spawnMutex);
        if (m_spawnStop) return api::Error::unavailable("etl " + m_spec.name + " is stopping");
        m_spawnQueue.push_back([&sp, &promise] { promise.set_value(spawn(sp)); });
    }
    m_spawnCv.notify_one();
    auto pid = future.get();
    if (!pid) return failure(pid.error().message + ": " + pid.error().causedBy, {});
    auto w = std::make_unique<Worker>();
    w->pid = *pid;
    {
        std::lock_guard lock(m_childrenMutex);
        m_children.insert(*pid);
    }
    auto pidfd = openPidFd(*pid);
    if (!pidfd) {
        dropWorker(std::move(w));
        return pidfd.error();
    }
    w->pidfd = std::move(pidfd.value());
    w->in = std::move(inW);
    w->out = std::move(outR);
    w->err = std::move(errR);
    setNonBlocking(w->in.get());
    setNonBlocking(w->out.get());
    setNonBlocking(w->err.get());
    return w;
}

void Transformer::dropWorker(std::unique_ptr<Worker> w)
{
    if (w && w->pid > 0) {
        killGroup(w->pid);
        int status = 0;
        while (::waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
        }
        std::lock_guard lock(m_childrenMutex);
        m_children.erase(w->pid);
    }
    {
        std::lock_guard lock(m_workersMutex);
        --m_workerCount;
    }
    m_workersCv.notify_one();
}

api::Result<EtlOutput> Transformer::runFramed(const EtlInput& in, const std::string& args)
{
    if (!args.empty()) {
        return api::Error::badRequest("etl " + m_spec.name +
                                      ": etl_args need a transformer started per object (framing \"none\")");
    }
    const auto deadline = Clock::now() + std::chrono::milliseconds(m_spec.objTimeoutMs);
    const unsigned pool = m_spec.poolSize != 0 ? m_spec.poolSize : std::max(2u, 2 * m_options.cores);
    std::unique_ptr<Worker> w;
    {
        std::unique_lock lock(m_workersMutex);
        if (!m_workersCv.wait_until(lock, deadline,
                                    [&] { return !m_idle.empty() || m_workerCount < pool || m_stopping.load(); })) {
            return api::Error::timeout("etl " + m_spec.name + ": every one of its " + std::to_string(pool) +
                                       " transformers stayed busy for obj_timeout");
        }
        if (m_stopping) return api::Error::unavailable("etl " + m_spec.name + " is stopping");
        if (!m_idle.empty()) {
            w = std::move(m_idle.back());
            m_idle.pop_back();
        } else {
            ++m_workerCount;
        }
    }
    if (!w) {
        auto started = startWorker();
        if (!started) {
            {
                std::lock_guard lock(m_workersMutex);
                --m_workerCount;
            }
            m_workersCv.notify_one();
            return started.error();
        }
        w = std::move(started.value());
    }
    // The frame: 8-byte big-endian length, then the bytes; the answer the same.
    const std::uint64_t inLen = in.fd >= 0 ? in.length : in.bytes.size();
    std::string header(8, '\0');
    for (int i = 0; i < 8; ++i) header[static_cast<std::size_t>(i)] = static_cast<char>((inLen >> (56 - 8 * i)) & 0xff);
    std::uint64_t inDone = 0;
    std::size_t headerDone = 0;
    std::string chunk;
    std::size_t chunkPos = 0;
    unsigned char outHeader[8];
    std::size_t outHeaderDone = 0;
    std::uint64_t outLen = 0, outDone = 0;
    auto memfd = makeOutputFile("etl-" + m_spec.name);
    if (!memfd) {
        dropWorker(std::move(w));
        return memfd.error();
    }
    OutputBuffer output{std::move(memfd.value()), 0, m_spec.maxOutputSize};
    std::string errText;
    char buf[65536];
    const auto fail = [&](api::Error e) {
        // Whatever it wrote last on stderr explains it.
        if (e.kind == api::ErrorKind::Internal) {
            // It is ending on its own: its exit status, not our kill, names it.
            pollfd p{w->pidfd.get(), POLLIN, 0};
            ::poll(&p, 1, 1000);
        }
        for (ssize_t n; (n = ::read(w->err.get(), buf, sizeof buf)) > 0;) {
            errText.append(buf, static_cast<std::size_t>(n));
            appendLog({buf, static_cast<std::size_t>(n)});
        }
        killGroup(w->pid);
        int status = 0;
        while (::waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
        }
        {
            std::lock_guard lock(m_childrenMutex);
            m_children.erase(w->pid);
        }
        w->pid = 0;
        dropWorker(std::move(w));
        if (e.kind == api::ErrorKind::Internal) e = failure("the transformer " + describeExit(status), errText);
        else if (!errText.empty() && e.causedBy.empty()) e.causedBy = tailOf(errText, kTailBytes);
        return e;
    };
    while (outHeaderDone < 8 || outDone < outLen) {
        const bool writing = headerDone < 8 || inDone < inLen;
        pollfd fds[4] = {{writing ? w->in.get() : -1, POLLOUT, 0},
                         {w->out.get(), POLLIN, 0},
                         {w->err.get(), POLLIN, 0},
                         {w->pidfd.get(), POLLIN, 0}};
        int left = msLeft(deadline);
        if (left == 0) {
            return fail(api::Error::timeout("etl " + m_spec.name + ": no result within obj_timeout (" +
                                            api::formatDurationMs(m_spec.objTimeoutMs) + ")"));
        }
        if (in.cancelled) {
            if (in.cancelled()) return fail(api::Error::unavailable("etl " + m_spec.name + ": cancelled"));
            left = std::min(left, 100);
        }
        const int n = ::poll(fds, 4, left);
        if (n < 0 && errno != EINTR) return fail(errnoError(errno, "poll"));
        if (n <= 0) continue;
        if (fds[3].revents & POLLIN) return fail(api::Error::internal("exited"));  // died: named by fail()
        if (writing && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
            if (headerDone < 8) {
                const ssize_t k = ::write(w->in.get(), header.data() + headerDone, 8 - headerDone);
                if (k > 0) headerDone += static_cast<std::size_t>(k);
                else if (k < 0 && errno != EAGAIN && errno != EINTR) return fail(api::Error::internal("exited"));
            } else {
                if (chunkPos == chunk.size()) {
                    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, inLen - inDone));
                    if (in.fd >= 0) {
                        chunk.resize(want);
                        const int e = preadExact(in.fd, chunk.data(), want, in.offset + inDone);
                        if (e != 0) return fail(errnoError(e == kEndOfFile ? EIO : e, "cannot read the input"));
                    } else {
                        chunk.assign(in.bytes.substr(inDone, want));
                    }
                    chunkPos = 0;
                }
                const ssize_t k = ::write(w->in.get(), chunk.data() + chunkPos, chunk.size() - chunkPos);
                if (k > 0) {
                    chunkPos += static_cast<std::size_t>(k);
                    if (chunkPos == chunk.size()) {
                        inDone += chunk.size();
                        chunk.clear();
                        chunkPos = 0;
                    }
                } else if (k < 0 && errno != EAGAIN && errno != EINTR) {
                    return fail(api::Error::internal("exited"));
                }
            }
        }
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (outHeaderDone < 8) {
                const ssize_t k = ::read(w->out.get(), outHeader + outHeaderDone, 8 - outHeaderDone);
                if (k == 0) return fail(api::Error::internal("exited"));
                if (k > 0) {
                    outHeaderDone += static_cast<std::size_t>(k);
                    if (outHeaderDone == 8) {
                        for (unsigned char b : outHeader) outLen = (outLen << 8) | b;
                        if (outLen > m_spec.maxOutputSize) {
                            return fail(api::Error::badGateway(
                                "etl " + m_spec.name + ": the transformer announced " + std::to_string(outLen) +
                                " bytes, more than max_output_size (" + std::to_string(m_spec.maxOutputSize) + ")"));
                        }
                    }
                }
            } else {
                const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, outLen - outDone));
                const ssize_t k = ::read(w->out.get(), buf, want);
                if (k == 0) return fail(api::Error::internal("exited"));
                if (k > 0) {
                    if (!output.write(buf, static_cast<std::size_t>(k))) {
                        return fail(errnoError(EIO, "cannot buffer the output"));
                    }
                    outDone += static_cast<std::uint64_t>(k);
                }
            }
        }
        if (fds[2].revents & POLLIN) {
            const ssize_t k = ::read(w->err.get(), buf, sizeof buf);
            if (k > 0) {
                errText.append(buf, static_cast<std::size_t>(k));
                if (errText.size() > 4 * kTailBytes) errText.erase(0, errText.size() - 2 * kTailBytes);
                appendLog({buf, static_cast<std::size_t>(k)});
            }
        }
    }
    if (inDone < inLen || headerDone < 8) {
        // It answered before reading all of its input: the stream is out of step.
        return fail(api::Error::badGateway("etl " + m_spec.name +
                                           ": the transformer answered before reading the whole object"));
    }
    if (m_stopping) {
        dropWorker(std::move(w));
    } else {
        {
            std::lock_guard lock(m_workersMutex);
            m_idle.push_back(std::move(w));
        }
        m_workersCv.notify_one();
    }
    return EtlOutput{std::make_shared<UniqueFd>(std::move(output.fd)), output.size};
}

}  // namespace tessera::daemon::etl
