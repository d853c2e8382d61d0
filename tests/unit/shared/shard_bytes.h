#pragma once
// Shards written in memory for the archive tests: members in order, every one
// with the same mtime; optionally the size of each block the sink received.

#include "archive/archive_writer.h"

#include <QTest>
#include <string>
#include <vector>

namespace tessera::archive::test {

struct Member {
    std::string name;
    std::string data;
};

inline std::string writeShard(ArchiveFormat f, const std::vector<Member>& members,
                              std::vector<std::size_t>* blocks = nullptr)
{
    std::string out;
    auto w = ArchiveWriter::create(f, [&](const char* p, std::size_t n) {
        out.append(p, n);
        if (blocks) blocks->push_back(n);
        return api::Status();
    });
    if (!w) qFatal("create: %s", w.error().message.c_str());
    for (const auto& m : members) {
        if (auto st = (*w)->add(m.name, m.data, 1700000000); !st) qFatal("add: %s", st.error().message.c_str());
    }
    if (auto st = (*w)->finish(); !st) qFatal("finish: %s", st.error().message.c_str());
    return out;
}

}  // namespace tessera::archive::test
