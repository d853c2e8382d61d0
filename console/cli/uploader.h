#pragma once
// Parallel upload of many local files to one bucket, with progress on a
// terminal (or periodic lines when not a terminal). Each worker thread owns
// its own client connection.

#include "client/api_client.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace tessera::cli {

struct UploadItem {
    std::string path;        // local file
    std::string objectName;  // name in the bucket
    std::uint64_t size = 0;
};

struct UploadResult {
    std::uint64_t objects = 0;
    std::uint64_t bytes = 0;
    double seconds = 0;
    std::vector<std::pair<std::string, std::string>> failures;  // object name, message
};

class Uploader {
public:
    // `direct`: send each object straight to its target (see Client::setDirect).
    // Progress goes to `progress` (see Progress); at most `workers` threads,
    // each with its own Client.
    Uploader(std::string endpoint, std::string bucket, unsigned workers, bool verify, bool direct,
             std::ostream& progress, bool progressIsTty);
    // The options of every worker's Client (the CLI's credential); set
    // before run().
    void setClientOptions(client::HttpClient::Options o) { m_clientOptions = std::move(o); }
    UploadResult run(const std::vector<UploadItem>& items);

private:
    std::string m_endpoint;
    std::string m_bucket;
    unsigned m_workers;
    bool m_verify;
    bool m_direct;
    std::ostream& m_progress;
    bool m_tty;
    client::HttpClient::Options m_clientOptions;
};

// xxhash64 of a file, hex; empty on read failure.
std::string fileChecksum(const std::string& path);

}  // namespace tessera::cli
