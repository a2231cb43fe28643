#include "models/jsonsyntax.h"

#include <nlohmann/json.hpp>

namespace reconscope::models {

namespace {

// Accepts every value; records the first syntax error.
class SyntaxCheck final : public nlohmann::json_sax<nlohmann::json>
{
public:
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t &) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t position,
                     const std::string &,
                     const nlohmann::detail::exception &ex) override
    {
        error = JsonSyntaxError{ position, ex.what() };
        return false;
    }

    std::optional<JsonSyntaxError> error;
};

} // namespace

std::optional<JsonSyntaxError> findJsonSyntaxError(QByteArrayView text)
{
    SyntaxCheck check;
    nlohmann::json::sax_parse(text.begin(), text.end(), &check);
    return check.error;
}

} // namespace reconscope::models
