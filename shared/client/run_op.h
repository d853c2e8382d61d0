#pragma once
// Blocking calls with timeouts over Asio: HttpClient's and FeedClient's.

#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/system/error_code.hpp>

namespace tessera::client {

// Runs one asynchronous operation to completion on a private io_context so
// that tcp_stream's timeouts apply to what is, for the caller, a blocking call.
template <typename Start>
boost::system::error_code runOp(boost::asio::io_context& ioc, Start&& start)
{
    boost::system::error_code result = boost::asio::error::would_block;
    start([&result](boost::system::error_code ec, auto&&...) { result = ec; });
    ioc.restart();
    ioc.run();
    return result;
}

}  // namespace tessera::client
