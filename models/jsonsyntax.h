#pragma once

#include <QByteArrayView>

#include <nlohmann/json_fwd.hpp>

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

// The first syntax error of `text`, or nothing when it is valid JSON. Builds no tree. nlohmann's
// lexer takes a NUL byte for the end of the input, so a value followed by one and anything after
// it would pass; that NUL is reported here as what it is in JSON (and to Go's decoder), an
// invalid character after the top-level value, in nlohmann's words for trailing text.
std::optional<JsonSyntaxError> findJsonSyntaxError(QByteArrayView text);

// What first goes wrong reading `text` as one JSON object whose containers nest at most
// `maxDepth` deep, in the order nlohmann's parser meets it: a syntax error, a top-level value
// that is not an object (named as nlohmann names types: "array", "string", ...), or a container
// that opens deeper (a NUL byte after the value as findJsonSyntaxError reports it). Builds no
// tree.
struct JsonObjectProblem
{
    enum class Kind { Syntax, NotAnObject, TooDeep };
    Kind kind = Kind::Syntax;
    JsonSyntaxError syntax; // Kind::Syntax
    std::string type; // Kind::NotAnObject
};
std::optional<JsonObjectProblem> findJsonObjectProblem(QByteArrayView text, std::size_t maxDepth);

// The text value.dump() writes (compact, members in the tree's order), built without recursion:
// the API admits containers nested 10000 deep, and dump()'s frame per level overflows a thread's
// stack at that depth in sanitizer builds. Kept equal to dump() by tst_jsonsyntax.
std::string compactJson(const nlohmann::json &value);

} // namespace reconscope::models
