#pragma once
// The types of a connection's socket and stream. A connection lives on one
// io_context that a single thread runs (HttpServer), so its executor is the
// io_context's own, not the type-erased any_io_executor: every asynchronous
// operation would otherwise copy and destroy a type-erased executor (about
// 4 % of a small GET's CPU).

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <variant>

namespace tessera::daemon::net {

using Executor = boost::asio::io_context::executor_type;
using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, Executor>;
using Stream = boost::beast::basic_stream<boost::asio::ip::tcp, Executor>;
// A connection of a node that serves TLS (tls.cert_file set).
using SslStream = boost::beast::ssl_stream<Stream>;
// The connection a WebSocket upgrade takes over, plain or TLS.
using AnyStream = std::variant<Stream*, SslStream*>;

}  // namespace tessera::daemon::net
