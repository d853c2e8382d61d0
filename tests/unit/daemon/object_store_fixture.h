#pragma once
// The object store tests' fixture: a store on two mountpath folders in a
// temporary directory, and the helpers the tests share (put, read, where a
// name lands, listing every page).
#include "target/object_store.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <string>
#include <unistd.h>
#include <vector>

namespace tessera::daemon::target::test {

class ObjectStoreFixture {
protected:
    QTemporaryDir m_dir;
    std::unique_ptr<ObjectStore> m_store;

    std::vector<std::string> mountpaths() const
    {
        return {(m_dir.path() + "/mp1").toStdString(), (m_dir.path() + "/mp2").toStdString()};
    }
    bool reopen(std::uint64_t maxObjectSize = std::uint64_t{1} << 40)
    {
        m_store.reset();
        ObjectStore::Options o;
        o.mountpaths = mountpaths();
        o.fsync = false;
        o.maxObjectSize = maxObjectSize;
        auto s = ObjectStore::create(o);
        if (!s) {
            qWarning("%s", s.error().message.c_str());
            return false;
        }
        m_store = std::move(s.value());
        return true;
    }
    api::Result<api::ObjectMeta> put(const std::string& name, const std::string& data, PutParams params = {},
                                     const std::string& bucket = "b")
    {
        auto w = m_store->beginPut(bucket, name, std::move(params));
        if (!w) return w.error();
        // Two writes: the checksum is computed over the stream, not one buffer.
        const auto half = data.size() / 2;
        auto st = (*w)->write(data.data(), half);
        if (!st) return st.error();
        st = (*w)->write(data.data() + half, data.size() - half);
        if (!st) return st.error();
        return (*w)->commit();
    }
    std::string read(const std::string& name)
    {
        auto o = m_store->open("b", name);
        if (!o) return "<" + std::string(api::errorKindName(o.kind())) + ">";
        std::string s(static_cast<std::size_t>(o->meta.size), '\0');
        const auto n = ::pread(o->fd->get(), s.data(), s.size(), 0);
        if (n != static_cast<ssize_t>(s.size())) return "<short read>";
        return s;
    }
    // Index of the mountpath an object name lands on.
    std::size_t mountpathOf(const std::string& name) const
    {
        const auto path = m_store->objectPath("b", name);
        const auto& mps = m_store->options().mountpaths;
        for (std::size_t i = 0; i < mps.size(); ++i) {
            if (path.rfind(mps[i] + "/", 0) == 0) return i;
        }
        return mps.size();
    }
    // "<base>/k<i>" for the first i whose mountpath is (or is not) `mp`.
    std::string childOn(const std::string& base, std::size_t mp, bool same) const
    {
        for (int i = 0; i < 1000; ++i) {
            auto n = base + "/k" + std::to_string(i);
            if ((mountpathOf(n) == mp) == same) return n;
        }
        return {};
    }
    int filesIn(const char* sub) const
    {
        int n = 0;
        for (const auto& mp : mountpaths()) {
            n += static_cast<int>(QDir(QString::fromStdString(mp + sub))
                                      .entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)
                                      .size());
        }
        return n;
    }
    int workFiles() const { return filesIn("/.tessera/work"); }
    std::vector<std::string> listAll(std::uint32_t pageSize, const std::string& prefix = {}, int* pages = nullptr,
                                     std::uint32_t props = api::kPropName)
    {
        std::vector<std::string> out;
        api::ListRequest req;
        req.pageSize = pageSize;
        req.prefix = prefix;
        req.props = props;
        for (int guard = 0; guard < 100000; ++guard) {
            auto page = m_store->list("b", req);
            if (!page) return {"<error>"};
            if (pages) ++*pages;
            if (page->entries.size() > pageSize) return {"<page too big>"};
            for (const auto& e : page->entries) out.push_back(e.name);
            if (page->continuationToken.empty()) return out;
            if (page->entries.empty() || page->continuationToken != page->entries.back().name) {
                return {"<token is not the last name>"};
            }
            req.continuationToken = page->continuationToken;
        }
        return {"<no end>"};
    }

    // Each test starts with an empty store.
    void resetStore()
    {
        QVERIFY(m_dir.isValid());
        m_store.reset();
        QDir(m_dir.path()).removeRecursively();
        QVERIFY(QDir().mkpath(m_dir.path()));
        QVERIFY(reopen());
        QCOMPARE(m_store->options().mountpaths.size(), std::size_t{2});
    }
};

}  // namespace tessera::daemon::target::test
