#include "png_encoder.h"

#include <csetjmp>
#include <png.h>
#include <vector>

namespace tessera::cli::demo {

namespace {
void appendToString(png_structp png, png_bytep data, png_size_t n)
{
    auto* out = static_cast<std::string*>(png_get_io_ptr(png));
    out->append(reinterpret_cast<const char*>(data), n);
}
void noFlush(png_structp) {}
}  // namespace

api::Result<std::string> encodeGrayPng(const std::uint8_t* pixels, std::uint32_t width, std::uint32_t height)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    if (png == nullptr) return api::Error::internal("png_create_write_struct failed");
    png_infop info = png_create_info_struct(png);
    if (info == nullptr) {
        png_destroy_write_struct(&png, nullptr);
        return api::Error::internal("png_create_info_struct failed");
    }
    std::string out;
    std::vector<png_bytep> rows(height);
    for (std::uint32_t y = 0; y < height; ++y) rows[y] = const_cast<png_bytep>(pixels + std::size_t{y} * width);
    // libpng reports errors by longjmp: nothing with a destructor is
    // created between here and the end of the writing.
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return api::Error::internal("PNG encoding failed");
    }
    png_set_write_fn(png, &out, appendToString, noFlush);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_rows(png, info, rows.data());
    png_write_png(png, info, PNG_TRANSFORM_IDENTITY, nullptr);
    png_destroy_write_struct(&png, &info);
    return out;
}

}  // namespace tessera::cli::demo
