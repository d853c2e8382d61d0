#pragma once
// A parsed HTTP request as handlers see it: method, raw path, decoded route
// parameters and query, headers, and (for buffered routes) the body.

#include "api/uri.h"

#include <boost/asio/ip/address.hpp>
#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/verb.hpp>
#include <map>
#include <string>
#include <string_view>

namespace tessera::daemon::net {

struct Request {
    boost::beast::http::verb method = boost::beast::http::verb::get;
    std::string target;  // as received: path + '?' + query, percent-encoded
    std::string path;    // percent-encoded path
    api::QueryMap query;
    std::map<std::string, std::string, std::less<>> params;  // decoded route captures
    const boost::beast::http::request_header<>* headers = nullptr;
    std::string body;  // buffered routes only
    std::uint64_t contentLength = 0;
    bool hasBody = false;  // a body is (or was) announced by the client
    // Auth on: the caller the Authorizer found (a user name; empty for
    // another node or a signed redirect) and whether its token says admin.
    std::string user;
    bool admin = false;
    // The client's address (the TCP peer; a node behind a reverse proxy
    // sees the proxy's).
    boost::asio::ip::address peer;

    std::string header(std::string_view name) const
    {
        if (headers == nullptr) return {};
        auto it = headers->find(boost::beast::string_view(name.data(), name.size()));
        return it == headers->end() ? std::string() : std::string(it->value());
    }
    std::string param(std::string_view name) const
    {
        auto it = params.find(name);
        return it == params.end() ? std::string() : it->second;
    }
    std::string queryValue(std::string_view name) const
    {
        auto it = query.find(name);
        return it == query.end() ? std::string() : it->second;
    }
    bool hasQuery(std::string_view name) const { return query.find(name) != query.end(); }
};

}  // namespace tessera::daemon::net
