#pragma once

#include <QString>

#include <utility>
#include <variant>

namespace sbw {

/// What kind of failure an Error is, for callers that act on it; the message is for people
/// only, and no caller decides by its text. Kinds are added when a caller needs one.
enum class ErrorCode
{
    Failed,     ///< no more specific kind: report the message
    Unanswered, ///< the other side never answered a request in time; the request had no effect
                ///< (a command channel the guest did not open: the command never started)
    InUse,      ///< held by another client (a guest channel another process has open)
};

/// A failure with a message meant for a person (one sentence, no libvirt internals unless they
/// help) and its kind, used by every fallible core API.
struct Error
{
    QString message;
    ErrorCode code = ErrorCode::Failed;
};

/// Value-or-error result for fallible calls (std::expected is C++23; this is the subset we use).
/// `ok()` tells which one it holds; `value()` and `error()` must only be called for that side.
template <typename T>
class Expected
{
public:
    Expected(T value) : m_data(std::in_place_index<0>, std::move(value)) {}
    Expected(Error error) : m_data(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_data.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<0>(m_data); }
    const T& value() const { return std::get<0>(m_data); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    const Error& error() const { return std::get<1>(m_data); }

private:
    std::variant<T, Error> m_data;
};

/// Result of a fallible call that returns nothing.
template <>
class Expected<void>
{
public:
    Expected() = default;
    Expected(Error error) : m_error(std::move(error)), m_failed(true) {}

    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const Error& error() const { return m_error; }

private:
    Error m_error;
    bool m_failed = false;
};

inline Error makeError(QString message, ErrorCode code = ErrorCode::Failed)
{
    return Error{std::move(message), code};
}

} // namespace sbw
