// The S3 API's XML documents (shared/api/s3_msg.h), read from any bytes with
// pugixml. Parsing never throws; a failure is a BadRequest; a document that
// parses, written with toXml and read again, gives the same value. Also the
// HTTP date reader behind If-Modified-Since: what it accepts, written back
// with httpDate and read again, is the same instant.

#include "fuzz_check.h"

#include "api/s3_msg.h"

using namespace tessera;

namespace {

template <typename T, typename Parse>
void roundTrip(std::string_view text, Parse parse)
{
    const auto v = parse(text);
    if (!v) {
        FUZZ_CHECK(v.kind() == api::ErrorKind::BadRequest, fuzz::errorText(v));
        return;
    }
    const std::string written = api::toXml(*v);
    const auto again = parse(written);
    FUZZ_CHECK(again, "the written form does not parse: " + fuzz::errorText(again) + " in " + written);
    FUZZ_CHECK(*again == *v, "read back differently: " + written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size > api::kS3MaxXmlBody) return 0;
    const auto text = fuzz::asText(data, size);
    roundTrip<api::S3Error>(text, api::parseS3Error);
    roundTrip<api::S3BucketList>(text, api::parseS3BucketList);
    roundTrip<api::S3ObjectList>(text, api::parseS3ObjectList);
    roundTrip<api::S3DeleteRequest>(text, api::parseS3DeleteRequest);
    roundTrip<api::S3DeleteResult>(text, api::parseS3DeleteResult);
    roundTrip<api::S3CopyResult>(text, api::parseS3CopyResult);
    roundTrip<api::S3InitiateUpload>(text, api::parseS3InitiateUpload);
    roundTrip<api::S3CompleteUpload>(text, api::parseS3CompleteUpload);
    roundTrip<api::S3CompleteResult>(text, api::parseS3CompleteResult);
    roundTrip<api::S3PartList>(text, api::parseS3PartList);
    roundTrip<api::S3UploadList>(text, api::parseS3UploadList);

    if (const auto t = api::parseHttpDate(text)) {
        const auto again = api::parseHttpDate(api::httpDate(*t));
        FUZZ_CHECK(again && *again == *t, std::string(text) + " -> " + api::httpDate(*t));
    }
    if (const auto d = api::parseHttpDate(text); !d)
        FUZZ_CHECK(d.kind() == api::ErrorKind::BadRequest, fuzz::errorText(d));
    return 0;
}
