#pragma once
// A local file to upload and the object name it gets.

#include <QString>
#include <vector>

namespace tessera::console {

struct UploadSource {
    QString localPath;
    QString relativeName;  // path under what was dropped, the dropped folder's name first ("photos/a/1.jpg")
    QString objectName;    // destination folder + relativeName
    qint64 size = 0;       // as seen by the folder walk
};

using UploadSources = std::vector<UploadSource>;

}  // namespace tessera::console
