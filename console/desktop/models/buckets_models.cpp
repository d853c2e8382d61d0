#include "models/buckets_models.h"

#include "core/object_batch.h"
#include "core/upload_queue.h"
#include "models/bucket_model.h"
#include "models/object_model.h"

namespace tessera::console {

BucketsModels BucketsModels::create(RestClient* rest, QObject* owner)
{
    return {new BucketModel(rest, owner), new ObjectModel(rest, owner), new UploadQueue(rest, owner),
            new ObjectBatch(rest, owner)};
}

}  // namespace tessera::console
