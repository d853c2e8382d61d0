#pragma once

class QObject;

namespace tessera::console {

class BucketModel;
class ObjectBatch;
class ObjectModel;
class RestClient;
class UploadQueue;

// What the Buckets page shows and drives: the bucket list, the objects of
// the open folder, the upload queue and the batch operations. The console
// session owns one set (so uploads and batches outlive the page's widgets);
// the page only displays them and turns gestures into their calls.
struct BucketsModels {
    BucketModel* buckets = nullptr;
    ObjectModel* objects = nullptr;
    UploadQueue* uploads = nullptr;
    ObjectBatch* batch = nullptr;

    // A set on `rest`, its objects children of `owner`.
    static BucketsModels create(RestClient* rest, QObject* owner);
};

}  // namespace tessera::console
