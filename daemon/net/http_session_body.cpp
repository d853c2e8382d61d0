// The bodies of responses that are not in memory: a file region (sendfile,
// or read and written over TLS), a relayed source read a piece at a time on
// the worker pool, or a relayed socket moved by splice. Members of
// BasicHttpSession, apart from http_session.cpp to keep each file to one
// concern.
#include "http_session.h"

#include "common/fd_io.h"
#include "common/log.h"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <cstring>
#include <sys/sendfile.h>

namespace tessera::daemon::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

namespace {
// A relayed body (BodySource) moves in pieces of this size: each piece costs
// two thread hops (read on a worker, write on the I/O thread), so fewer,
// larger ones.
constexpr std::size_t kSourceChunk = 1024 * 1024;
constexpr std::size_t kSendfileSlice = 4 * 1024 * 1024;           // yield to other connections after this many bytes
constexpr std::size_t kSpliceTurn = 16 * 1024 * 1024;             // a relay yields its worker after this many bytes
constexpr int kClientAbort = stats::StatsRecorder::kClientAbort;  // counted apart from errors
}  // namespace

template <class S>
void BasicHttpSession<S>::sendSourceChunk()
{
    if (m_sourceLeft == 0) {
        m_source.reset();
        onWritten({});
        return;
    }
    if (m_sourceBuf.size() < kSourceChunk) m_sourceBuf.resize(kSourceChunk);
    lowest().expires_never();
    asio::post(*m_ctx->workers, [self = this->shared_from_this()] {
        const auto want =
            static_cast<std::size_t>(std::min<std::uint64_t>(self->m_sourceLeft, self->m_sourceBuf.size()));
        auto got = self->m_source->read(self->m_sourceBuf.data(), want);
        asio::post(self->m_stream.get_executor(), [self, got = std::move(got)]() mutable {
            if (!got || *got == 0 || *got > self->m_sourceLeft) {
                // The length is promised already: closing is the only honest move.
                logWarn("relayed body of ", self->m_req.path,
                        " ended early: ", got ? std::string("source ended") : got.error().message);
                self->m_source.reset();
                self->recordOp(502);
                self->closeConnection();
                return;
            }
            const std::size_t n = *got;
            self->lowest().expires_after(self->m_ctx->options.ioTimeout);
            asio::async_write(self->m_stream, asio::buffer(self->m_sourceBuf.data(), n),
                              [self, n](beast::error_code ec, std::size_t) {
                                  if (ec) {
                                      self->m_source.reset();
                                      self->recordOp(kClientAbort);
                                      self->closeConnection();
                                      return;
                                  }
                                  self->m_sourceLeft -= n;
                                  if (self->m_sourceLeft == 0) std::vector<char>().swap(self->m_sourceBuf);
                                  self->sendSourceChunk();
                              });
        });
    });
}

template <class S>
void BasicHttpSession<S>::sendSpliceChunk()
{
    if (m_sourceLeft == 0) {
        endSplice();
        onWritten({});
        return;
    }
    auto& sock = lowest().socket();
    boost::system::error_code ec;
    sock.native_non_blocking(true, ec);
    lowest().expires_never();
    // On a worker: the read from the target blocks (as BodySource::read).
    asio::post(*m_ctx->workers, [self = this->shared_from_this(), to = sock.native_handle()] {
        auto step = self->m_splice->run(self->m_spliceFrom, to, self->m_sourceLeft, kSpliceTurn);
        asio::post(self->m_stream.get_executor(), [self, step = std::move(step)]() mutable {
            using Step = SplicePump::Step;
            if (!step || *step == Step::ClientGone) {
                if (!step) logWarn("relayed body of ", self->m_req.path, " ended early: ", step.error().message);
                self->recordOp(step ? kClientAbort : step.error().kind == api::ErrorKind::Internal ? 500 : 502);
                self->endSplice();
                self->closeConnection();
                return;
            }
            if (*step == Step::Done) {
                self->endSplice();
                self->onWritten({});
                return;
            }
            if (*step == Step::More) {
                self->sendSpliceChunk();
                return;
            }
            // The client's socket is full: wait for room, at most the I/O timeout.
            self->m_sendTimer.expires_after(self->m_ctx->options.ioTimeout);
            self->m_sendTimer.async_wait([self](boost::system::error_code tec) {
                if (!tec) {
                    boost::system::error_code cec;
                    self->lowest().socket().cancel(cec);
                }
            });
            self->lowest().socket().async_wait(tcp::socket::wait_write, [self](boost::system::error_code wec) {
                self->m_sendTimer.cancel();
                if (wec) {
                    self->recordOp(kClientAbort);
                    self->endSplice();
                    self->closeConnection();
                    return;
                }
                self->sendSpliceChunk();
            });
        });
    });
}

template <class S>
void BasicHttpSession<S>::endSplice()
{
    m_splice.reset();
    m_spliceFrom = -1;
    m_source.reset();  // closes the target's socket
    m_sourceLeft = 0;
}

template <class S>
void BasicHttpSession<S>::sendFileChunk()
{
    if constexpr (kTls) {
        sendFileChunkTls();
        return;
    }
    auto& sock = lowest().socket();
    boost::system::error_code ec;
    sock.native_non_blocking(true, ec);
    std::size_t sentThisTurn = 0;
    while (m_file->length > 0) {
        off_t off = static_cast<off_t>(m_file->offset);
        const std::size_t want = std::min<std::uint64_t>(m_file->length, kSendfileSlice);
        const ssize_t n = ::sendfile(sock.native_handle(), m_file->fd->get(), &off, want);
        if (n > 0) {
            m_file->offset += static_cast<std::uint64_t>(n);
            m_file->length -= static_cast<std::uint64_t>(n);
            sentThisTurn += static_cast<std::size_t>(n);
            if (sentThisTurn >= kSendfileSlice && m_file->length > 0) {
                // Let other connections on this I/O thread run.
                asio::post(m_stream.get_executor(), [self = this->shared_from_this()] { self->sendFileChunk(); });
                return;
            }
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            m_sendTimer.expires_after(m_ctx->options.ioTimeout);
            m_sendTimer.async_wait([self = this->shared_from_this()](boost::system::error_code tec) {
                if (!tec) {
                    boost::system::error_code cec;
                    self->lowest().socket().cancel(cec);
                }
            });
            sock.async_wait(tcp::socket::wait_write, [self = this->shared_from_this()](boost::system::error_code wec) {
                self->m_sendTimer.cancel();
                if (wec) {
                    self->recordOp(kClientAbort);
                    self->closeConnection();
                    return;
                }
                self->sendFileChunk();
            });
            return;
        }
        if (n < 0 && errno == EINTR) continue;
        // The client closed its end: its abort, not this node's failure.
        const bool clientGone = n < 0 && (errno == EPIPE || errno == ECONNRESET);
        // n == 0 (file shrank underneath) or a hard error: the response is
        // already promised with a length, so the only honest move is to close.
        if (!clientGone) {
            logWarn("sendfile failed for ", m_req.path, ": ", n == 0 ? "unexpected end of file" : std::strerror(errno));
        }
        recordOp(clientGone ? kClientAbort : 500);
        closeConnection();
        return;
    }
    fileSent();
}

template <class S>
void BasicHttpSession<S>::fileSent()
{
    m_file.reset();
    if (!m_parts.empty()) {
        sendNextPart();
        return;
    }
    onWritten({});
}

template <class S>
void BasicHttpSession<S>::sendNextPart()
{
    if (m_nextPart == m_parts.size()) {
        m_parts.clear();
        m_nextPart = 0;
        onWritten({});
        return;
    }
    auto& part = m_parts[m_nextPart++];
    if (part.file) {
        m_file = std::move(part.file);
        sendFileChunk();
        return;
    }
    lowest().expires_after(m_ctx->options.ioTimeout);
    asio::async_write(m_stream, asio::buffer(part.bytes),
                      [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                          if (ec) {
                              self->recordOp(kClientAbort);
                              self->closeConnection();
                              return;
                          }
                          self->sendNextPart();
                      });
}

template <class S>
void BasicHttpSession<S>::sendFileChunkTls()
{
    if (m_file->length == 0) {
        fileSent();
        return;
    }
    if (m_chunk.size() < kBodyChunk) m_chunk.resize(kBodyChunk);
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(m_file->length, m_chunk.size()));
    if (const int e = preadExact(m_file->fd->get(), m_chunk.data(), n, m_file->offset); e != 0) {
        // The length is promised already: closing is the only honest move.
        logWarn("read of ", m_req.path, " failed: ", std::strerror(e));
        recordOp(500);
        closeConnection();
        return;
    }
    lowest().expires_after(m_ctx->options.ioTimeout);
    asio::async_write(m_stream, asio::buffer(m_chunk.data(), n),
                      [self = this->shared_from_this(), n](beast::error_code ec, std::size_t) {
                          if (ec) {
                              self->recordOp(kClientAbort);
                              self->closeConnection();
                              return;
                          }
                          self->m_file->offset += n;
                          self->m_file->length -= n;
                          self->sendFileChunkTls();
                      });
}

#define TESSERA_INSTANTIATE(S)                            \
    template void BasicHttpSession<S>::sendSourceChunk(); \
    template void BasicHttpSession<S>::sendSpliceChunk(); \
    template void BasicHttpSession<S>::endSplice();       \
    template void BasicHttpSession<S>::sendFileChunk();   \
    template void BasicHttpSession<S>::fileSent();        \
    template void BasicHttpSession<S>::sendNextPart();    \
    template void BasicHttpSession<S>::sendFileChunkTls();
TESSERA_INSTANTIATE(Stream)
TESSERA_INSTANTIATE(SslStream)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::daemon::net
