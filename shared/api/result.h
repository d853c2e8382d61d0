#pragma once
// Result<T>: the value of an operation that may fail in an expected way.
// Errors carry a kind (which maps to an HTTP status in exactly one place,
// http_error.cpp) and a human-readable message. Exceptions are reserved for
// bugs and start-up failures.

#include <string>
#include <utility>
#include <variant>

namespace tessera::api {

enum class ErrorKind {
    BadRequest,
    NotFound,
    Conflict,
    Corruption,
    IoError,
    NoSpace,
    Unavailable,
    Timeout,
    RangeNotSatisfiable,
    TooLarge,
    HeaderTooLarge,  // the request head is over the limit (431)
    MethodNotAllowed,
    Unauthorized,     // no credentials, or credentials that do not hold (401)
    Forbidden,        // known caller without the permission (403)
    BadGateway,       // a process the node relies on (an ETL transformer) failed (502)
    TooManyRequests,  // a caller over a rate limit (429; with Retry-After)
    Internal,
};

const char* errorKindName(ErrorKind kind);

struct Error {
    ErrorKind kind = ErrorKind::Internal;
    std::string message;
    std::string causedBy;  // optional: the lower-level reason (errno text, peer error)

    static Error badRequest(std::string m) { return {ErrorKind::BadRequest, std::move(m), {}}; }
    static Error notFound(std::string m) { return {ErrorKind::NotFound, std::move(m), {}}; }
    static Error conflict(std::string m) { return {ErrorKind::Conflict, std::move(m), {}}; }
    static Error corruption(std::string m) { return {ErrorKind::Corruption, std::move(m), {}}; }
    static Error ioError(std::string m, std::string cause = {})
    {
        return {ErrorKind::IoError, std::move(m), std::move(cause)};
    }
    static Error noSpace(std::string m) { return {ErrorKind::NoSpace, std::move(m), {}}; }
    static Error unavailable(std::string m) { return {ErrorKind::Unavailable, std::move(m), {}}; }
    static Error timeout(std::string m) { return {ErrorKind::Timeout, std::move(m), {}}; }
    static Error unauthorized(std::string m) { return {ErrorKind::Unauthorized, std::move(m), {}}; }
    static Error forbidden(std::string m) { return {ErrorKind::Forbidden, std::move(m), {}}; }
    static Error internal(std::string m) { return {ErrorKind::Internal, std::move(m), {}}; }
    static Error badGateway(std::string m, std::string cause = {})
    {
        return {ErrorKind::BadGateway, std::move(m), std::move(cause)};
    }
};

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_v(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(m_v); }
    const T& value() const& { return std::get<0>(m_v); }
    T&& value() && { return std::get<0>(std::move(m_v)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const { return std::get<1>(m_v); }
    ErrorKind kind() const { return error().kind; }

private:
    std::variant<T, Error> m_v;
};

template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : m_error(std::move(error)), m_failed(true) {}

    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const Error& error() const { return m_error; }
    ErrorKind kind() const { return m_error.kind; }

private:
    Error m_error;
    bool m_failed = false;
};

using Status = Result<void>;

}  // namespace tessera::api
