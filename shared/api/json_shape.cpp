#include "json_shape.h"

#include <nlohmann/json.hpp>
#include <string>

namespace tessera::api {

namespace {

class ShapeSax : public nlohmann::json_sax<nlohmann::json> {
public:
    explicit ShapeSax(const JsonShape& shape) : m_shape(shape) {}
    std::string error;

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override { return open(JsonShape::Top::Object); }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(JsonShape::Top::Array); }
    bool end_array() override { return close(); }
    bool key(string_t&) override { return true; }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override
    {
        std::string what = e.what();
        if (auto tag = what.find("] "); tag != std::string::npos) what = what.substr(tag + 2);
        error = "malformed JSON at byte " + std::to_string(position) + ": " + what;
        return false;
    }

private:
    bool value()
    {
        if (m_depth == 0) {
            error = std::string("must be a JSON ") + (m_shape.top == JsonShape::Top::Object ? "object" : "array");
            return false;
        }
        if (++m_values > m_shape.maxValues) {
            error = "more than " + std::to_string(m_shape.maxValues) + " values";
            return false;
        }
        return true;
    }
    bool open(JsonShape::Top type)
    {
        if (m_depth == 0 && type != m_shape.top) {
            error = std::string("must be a JSON ") + (m_shape.top == JsonShape::Top::Object ? "object" : "array");
            return false;
        }
        if (++m_depth > m_shape.maxDepth) {
            error = "nested deeper than " + std::to_string(m_shape.maxDepth) + " levels";
            return false;
        }
        if (++m_values > m_shape.maxValues) {
            error = "more than " + std::to_string(m_shape.maxValues) + " values";
            return false;
        }
        return true;
    }
    bool close()
    {
        --m_depth;
        return true;
    }

    const JsonShape& m_shape;
    std::size_t m_depth = 0;
    std::size_t m_values = 0;
};

}  // namespace

Status checkJsonShape(std::string_view text, const JsonShape& shape, std::string_view what)
{
    ShapeSax sax(shape);
    const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
    if (ok && sax.error.empty()) return {};
    return Error::badRequest(std::string(what) + ": body " + (sax.error.empty() ? "is not valid JSON" : sax.error));
}

}  // namespace tessera::api
