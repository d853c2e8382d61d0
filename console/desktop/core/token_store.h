#pragma once

#include "api/auth_msg.h"
#include "api/result.h"

#include <QObject>
#include <QString>
#include <functional>
#include <optional>

namespace tessera::console {

// Where the console keeps a profile's tokens (the access and the refresh
// token of api::TokenReply; never a password): the system keychain through
// QtKeychain (Secret Service, KWallet, macOS Keychain, Windows Credential
// Store), or a JSON file of mode 0600 in the console's config folder.
//
// Backend::Auto tries the keychain and, the first time it is unreachable (no
// D-Bus secret service, as on a server or offscreen), moves to the file for
// the rest of the run, and says so once with notice() when it first keeps
// tokens there (not on a read: every start reads). Backend::File uses the
// file only (tests, and users who ask for it); Backend::Keychain never falls
// back (its errors are returned).
//
// Every call runs `done` on the UI thread; the file backend runs it before the
// call returns, the keychain's later. Entries are keyed by profile (its name,
// or the endpoint for a one-off connection).
class TokenStore : public QObject {
    Q_OBJECT
public:
    enum class Backend { Auto, Keychain, File };
    struct Options {
        Backend backend = Backend::Auto;
        QString filePath;  // the fallback file (created with its folder when first written)
        QString service = QStringLiteral("tessera-console");  // the keychain's service name
        // TESSERA_CONSOLE_TOKEN_STORE=auto|keychain|file (default auto), the
        // file <defaultConfigDir()>/tokens.json.
        static Options fromEnvironment();
    };
    using ReadCallback = std::function<void(api::Result<std::optional<api::TokenReply>>)>;
    using StatusCallback = std::function<void(api::Status)>;

    explicit TokenStore(Options options, QObject* parent = nullptr);

    void read(const QString& key, ReadCallback done);
    void write(const QString& key, const api::TokenReply& tokens, StatusCallback done);
    // Nothing stored for `key` is ok.
    void remove(const QString& key, StatusCallback done);

    // "keychain" or "file <path>" (what is in use now).
    QString backendName() const;
    bool usingFile() const { return m_useFile; }
    QString filePath() const { return m_options.filePath; }

signals:
    // Once, when Auto moves to the file: why, and where the tokens go.
    void notice(const QString& text);

private:
    enum class Op { Read, Write, Remove };
    // Auto: the keychain failed for a reason other than a missing entry.
    void fallBack(const QString& why);
    void announceFallback();
    api::Result<std::optional<api::TokenReply>> fileRead(const QString& key) const;
    api::Status fileWrite(const QString& key, const std::optional<api::TokenReply>& tokens) const;
    void keychainRead(const QString& key, ReadCallback done);
    void keychainWrite(const QString& key, const api::TokenReply& tokens, StatusCallback done);
    void keychainRemove(const QString& key, StatusCallback done);

    Options m_options;
    bool m_useFile;
    QString m_fallbackWhy;  // set once Auto moved to the file
    bool m_fallbackAnnounced = false;
};

}  // namespace tessera::console
