#include "core/token_store.h"

#include "api/json_util.h"
#include "api/wire.h"
#include "core/console_paths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <nlohmann/json.hpp>
#include <qt6keychain/keychain.h>

namespace tessera::console {

namespace {

// The token file holds a few entries of ~1 KiB each; anything much larger
// is not ours.
constexpr qint64 kMaxTokenFileBytes = 4 * 1024 * 1024;
constexpr QFileDevice::Permissions kOwnerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;

QString keychainKey(const QString& key) { return QStringLiteral("profile/") + key; }

bool isMissingEntry(QKeychain::Error error) { return error == QKeychain::EntryNotFound; }

api::Result<api::TokenReply> parseEntry(const nlohmann::json& j, const QString& where)
{
    return api::readMessage<api::TokenReply>(j, "stored tokens in " + where.toStdString());
}

}  // namespace

TokenStore::Options TokenStore::Options::fromEnvironment()
{
    Options o;
    const QString backend = qEnvironmentVariable("TESSERA_CONSOLE_TOKEN_STORE").trimmed().toLower();
    if (backend == QLatin1String("file")) {
        o.backend = Backend::File;
    } else if (backend == QLatin1String("keychain")) {
        o.backend = Backend::Keychain;
    }
    o.filePath = QDir(defaultConfigDir()).filePath(QStringLiteral("tokens.json"));
    return o;
}

TokenStore::TokenStore(Options options, QObject* parent)
    : QObject(parent), m_options(std::move(options)), m_useFile(m_options.backend == Backend::File)
{
}

QString TokenStore::backendName() const
{
    return m_useFile ? QStringLiteral("file %1").arg(m_options.filePath) : QStringLiteral("keychain");
}

void TokenStore::fallBack(const QString& why)
{
    if (m_useFile) return;
    m_useFile = true;
    m_fallbackWhy = why;
    qInfo("tessera-console: no system keychain reachable (%s): tokens go to %s", qPrintable(why),
          qPrintable(m_options.filePath));
}

void TokenStore::announceFallback()
{
    // Said once, when tokens are first kept in the file: a read or removal
    // that finds no keychain (every start, even on a cluster without auth)
    // is not worth a word in the status bar.
    if (m_fallbackWhy.isEmpty() || m_fallbackAnnounced) return;
    m_fallbackAnnounced = true;
    emit notice(tr("No system keychain reachable (%1): tokens are kept in %2 (readable by you only)")
                    .arg(m_fallbackWhy, m_options.filePath));
}

void TokenStore::read(const QString& key, ReadCallback done)
{
    if (m_useFile) return done(fileRead(key));
    keychainRead(key, std::move(done));
}

void TokenStore::write(const QString& key, const api::TokenReply& tokens, StatusCallback done)
{
    if (m_useFile) {
        announceFallback();
        return done(fileWrite(key, tokens));
    }
    keychainWrite(key, tokens, std::move(done));
}

void TokenStore::remove(const QString& key, StatusCallback done)
{
    if (m_useFile) return done(fileWrite(key, std::nullopt));
    keychainRemove(key, std::move(done));
}

void TokenStore::keychainRead(const QString& key, ReadCallback done)
{
    auto* job = new QKeychain::ReadPasswordJob(m_options.service, this);
    job->setAutoDelete(true);
    job->setKey(keychainKey(key));
    connect(job, &QKeychain::Job::finished, this, [this, key, done = std::move(done)](QKeychain::Job* finished) {
        auto* read = static_cast<QKeychain::ReadPasswordJob*>(finished);
        if (read->error() == QKeychain::NoError) {
            const std::string text = read->textData().toStdString();
            auto tokens = api::parseMessage<api::TokenReply>(text, "stored tokens in the keychain");
            if (!tokens) return done(tokens.error());
            return done(std::optional<api::TokenReply>(std::move(*tokens)));
        }
        if (isMissingEntry(read->error())) return done(std::optional<api::TokenReply>());
        if (m_options.backend == Backend::Auto) {
            fallBack(read->errorString());
            return done(fileRead(key));
        }
        done(api::Error::unavailable("keychain: " + read->errorString().toStdString()));
    });
    job->start();
}

void TokenStore::keychainWrite(const QString& key, const api::TokenReply& tokens, StatusCallback done)
{
    auto* job = new QKeychain::WritePasswordJob(m_options.service, this);
    job->setAutoDelete(true);
    job->setKey(keychainKey(key));
    job->setTextData(QString::fromStdString(api::dumpJson(nlohmann::json(tokens))));
    connect(job, &QKeychain::Job::finished, this,
            [this, key, tokens, done = std::move(done)](QKeychain::Job* finished) {
                if (finished->error() == QKeychain::NoError) return done({});
                if (m_options.backend == Backend::Auto) {
                    fallBack(finished->errorString());
                    announceFallback();
                    return done(fileWrite(key, tokens));
                }
                done(api::Error::unavailable("keychain: " + finished->errorString().toStdString()));
            });
    job->start();
}

void TokenStore::keychainRemove(const QString& key, StatusCallback done)
{
    auto* job = new QKeychain::DeletePasswordJob(m_options.service, this);
    job->setAutoDelete(true);
    job->setKey(keychainKey(key));
    connect(job, &QKeychain::Job::finished, this, [this, key, done = std::move(done)](QKeychain::Job* finished) {
        if (finished->error() == QKeychain::NoError || isMissingEntry(finished->error())) return done({});
        if (m_options.backend == Backend::Auto) {
            fallBack(finished->errorString());
            return done(fileWrite(key, std::nullopt));
        }
        done(api::Error::unavailable("keychain: " + finished->errorString().toStdString()));
    });
    job->start();
}

api::Result<std::optional<api::TokenReply>> TokenStore::fileRead(const QString& key) const
{
    QFile file(m_options.filePath);
    if (!file.exists()) return std::optional<api::TokenReply>();
    if (!file.open(QIODevice::ReadOnly)) {
        return api::Error::ioError("cannot read " + m_options.filePath.toStdString(), file.errorString().toStdString());
    }
    if (file.size() > kMaxTokenFileBytes) {
        return api::Error::corruption(m_options.filePath.toStdString() + " is larger than a token file can be");
    }
    const QByteArray bytes = file.readAll();
    const auto j = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
    if (!j.is_object()) return api::Error::corruption(m_options.filePath.toStdString() + " is not a JSON object");
    const std::string k = key.toStdString();
    if (!j.contains(k)) return std::optional<api::TokenReply>();
    auto tokens = parseEntry(j.at(k), m_options.filePath);
    if (!tokens) return tokens.error();
    return std::optional<api::TokenReply>(std::move(*tokens));
}

api::Status TokenStore::fileWrite(const QString& key, const std::optional<api::TokenReply>& tokens) const
{
    nlohmann::json all = nlohmann::json::object();
    {
        QFile file(m_options.filePath);
        if (file.exists()) {
            if (!file.open(QIODevice::ReadOnly) || file.size() > kMaxTokenFileBytes) {
                return api::Error::ioError("cannot read " + m_options.filePath.toStdString(),
                                           file.errorString().toStdString());
            }
            const QByteArray bytes = file.readAll();
            all = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
            // A damaged file is replaced: it holds nothing but tokens, and a
            // sign-in gets new ones.
            if (!all.is_object()) all = nlohmann::json::object();
        }
    }
    const std::string k = key.toStdString();
    if (tokens) {
        all[k] = *tokens;
    } else {
        if (!all.contains(k)) return {};
        all.erase(k);
    }
    const QFileInfo info(m_options.filePath);
    QDir dir = info.absoluteDir();
    if (!dir.exists()) {
        if (!dir.mkpath(QStringLiteral("."))) {
            return api::Error::ioError("cannot create " + dir.path().toStdString(), {});
        }
        QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    }
    QSaveFile out(m_options.filePath);
    if (!out.open(QIODevice::WriteOnly)) {
        return api::Error::ioError("cannot write " + m_options.filePath.toStdString(), out.errorString().toStdString());
    }
    // The temporary file is made owner-only before a token is written to it,
    // and keeps its mode when it is renamed into place.
    if (!out.setPermissions(kOwnerOnly)) {
        out.cancelWriting();
        return api::Error::ioError("cannot make " + m_options.filePath.toStdString() + " private",
                                   out.errorString().toStdString());
    }
    const QByteArray bytes = QByteArray::fromStdString(all.dump(2));
    if (out.write(bytes) != bytes.size() || !out.commit()) {
        return api::Error::ioError("cannot write " + m_options.filePath.toStdString(), out.errorString().toStdString());
    }
    return {};
}

}  // namespace tessera::console
