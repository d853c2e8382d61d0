#pragma once
// A Beast body type for benchmark responses: the payload is counted, fed to
// an xxhash64 stream when the run verifies checksums, and kept only when the
// caller needs it (a listing page). A GET of any size therefore costs no
// allocation and no copy beyond the socket read.

#include "api/checksum.h"

#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/optional.hpp>
#include <cstdint>
#include <string>

namespace tessera::cli::bench {

struct SinkBody {
    struct value_type {
        api::Xxh64Stream* hash = nullptr;  // not owned; null: no checksum
        std::string* keep = nullptr;       // not owned; null: the bytes are dropped
        std::uint64_t bytes = 0;
    };

    class reader {
    public:
        template <bool isRequest, class Fields>
        reader(boost::beast::http::header<isRequest, Fields>&, value_type& body) : m_body(body)
        {
        }
        void init(const boost::optional<std::uint64_t>&, boost::beast::error_code& ec) { ec = {}; }
        template <class ConstBufferSequence>
        std::size_t put(const ConstBufferSequence& buffers, boost::beast::error_code& ec)
        {
            std::size_t n = 0;
            for (const auto b : boost::beast::buffers_range_ref(buffers)) {
                const auto* p = static_cast<const char*>(b.data());
                if (m_body.hash != nullptr) m_body.hash->update(p, b.size());
                if (m_body.keep != nullptr) m_body.keep->append(p, b.size());
                n += b.size();
            }
            m_body.bytes += n;
            ec = {};
            return n;
        }
        void finish(boost::beast::error_code& ec) { ec = {}; }

    private:
        value_type& m_body;
    };
};

}  // namespace tessera::cli::bench
