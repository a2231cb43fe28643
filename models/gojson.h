#pragma once

#include <QByteArrayView>

#include <optional>
#include <string>
#include <string_view>

// The wording of Go's encoding/json when it refuses a document, which kube-apiserver passes on
// in its 400 answers ("couldn't get version/kind; json parse error: ...", "error decoding patch:
// ...", "continue key is not valid: ...").
namespace reconscope::models {

// The message of the first syntax error of `text` as Go's scanner (json.Valid, json.Unmarshal)
// reports it: "invalid character 'o' in literal null (expecting 'u')", "unexpected end of JSON
// input", "invalid character '[' exceeded max depth" past 10000 nested containers; nothing when
// `text` is one JSON value. Bytes are not checked as UTF-8, as Go does not.
std::optional<std::string> goJsonSyntaxError(QByteArrayView text);

// The JSON type of the top-level value of valid `text` as Go's decoder names it in "cannot
// unmarshal <type> into ...": "object", "array", "string", "number", "bool" or "null".
std::string_view goJsonValueType(QByteArrayView text);

// What json.Unmarshal says when it decodes `text` into a Go value of type `goType` that reads
// JSON values of type `accepts` ("object" or "array"; null leaves it untouched): the syntax error,
// else "json: cannot unmarshal <type> into Go value of type <goType>"; nothing when it decodes.
std::optional<std::string>
goUnmarshalError(QByteArrayView text, std::string_view accepts, std::string_view goType);

} // namespace reconscope::models
