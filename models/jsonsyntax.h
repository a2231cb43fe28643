#pragma once

#include <QByteArrayView>

#include <cstddef>
#include <optional>
#include <string>

namespace reconscope::models {

// Where strict JSON text first goes wrong, as nlohmann's parser reports it.
struct JsonSyntaxError
{
    std::size_t position = 0; // 1-based byte position where the parser stopped
    std::string what; // nlohmann's message ("[json.exception.parse_error.101] parse error at ...")
};

// The first syntax error of `text`, or nothing when it is valid JSON. Builds no tree.
std::optional<JsonSyntaxError> findJsonSyntaxError(QByteArrayView text);

} // namespace reconscope::models
