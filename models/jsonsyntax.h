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

// What first goes wrong reading `text` as one JSON object whose containers nest at most
// `maxDepth` deep, in the order nlohmann's parser meets it: a syntax error, a top-level value
// that is not an object (named as nlohmann names types: "array", "string", ...), or a container
// that opens deeper. Builds no tree.
struct JsonObjectProblem
{
    enum class Kind { Syntax, NotAnObject, TooDeep };
    Kind kind = Kind::Syntax;
    JsonSyntaxError syntax; // Kind::Syntax
    std::string type; // Kind::NotAnObject
};
std::optional<JsonObjectProblem> findJsonObjectProblem(QByteArrayView text, std::size_t maxDepth);

} // namespace reconscope::models
