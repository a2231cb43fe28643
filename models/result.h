#pragma once

#include <QString>

#include <optional>
#include <utility>
#include <variant>

namespace reconscope::models {

// A plain error: what went wrong, said so that a user can act on it.
struct Error
{
    QString message;
};

// std::expected-style result (Qt Creator's Utils::Result): a value or an error, never an exception
// across the event loop.
template<typename T, typename E = Error>
class [[nodiscard]] Result
{
public:
    Result(T value)
        : m_data(std::in_place_index<0>, std::move(value))
    { }
    Result(E error)
        : m_data(std::in_place_index<1>, std::move(error))
    { }

    static Result failure(QString message) requires std::is_same_v<E, Error>
    {
        return Result(Error{ std::move(message) });
    }

    bool ok() const { return m_data.index() == 0; }
    explicit operator bool() const { return ok(); }

    T &value() & { return std::get<0>(m_data); }
    const T &value() const & { return std::get<0>(m_data); }
    T &&value() && { return std::get<0>(std::move(m_data)); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }

    const E &error() const { return std::get<1>(m_data); }

private:
    std::variant<T, E> m_data;
};

// Result of an operation that yields nothing but may fail.
template<typename E = Error>
class [[nodiscard]] Status
{
public:
    Status() = default;
    Status(E error)
        : m_error(std::move(error))
    { }
    static Status failure(QString message) requires std::is_same_v<E, Error>
    {
        return Status(Error{ std::move(message) });
    }
    bool ok() const { return !m_error.has_value(); }
    explicit operator bool() const { return ok(); }
    const E &error() const { return *m_error; }

private:
    std::optional<E> m_error;
};

} // namespace reconscope::models
