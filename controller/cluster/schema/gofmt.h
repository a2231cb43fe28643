#pragma once

#include <nlohmann/json.hpp>

#include <QString>

// Renders JSON values the way Go's fmt package prints the corresponding decoded values, so that
// error messages read as the upstream API server writes them.
namespace reconscope::controller::cluster::gofmt {

// Go's %q of a string.
QString quote(const std::string &text);
QString quote(const QString &text);
// Go's %v of a decoded JSON scalar (int64 exact, float64 shortest, strings unquoted).
QString plain(const nlohmann::json &value);
// Go's %#v of a decoded JSON value (map[string]interface {}{...}, []interface {}{...}).
QString sharp(const nlohmann::json &value);
// Go's json.Marshal of a decoded JSON value: compact, map keys sorted, '<', '>', '&', U+2028 and
// U+2029 escaped. (Struct-typed values list their members in declaration order: callers whose
// order differs from the sorted one compose the text themselves.)
QString marshal(const nlohmann::json &value);
// apimachinery field.Error's rendering of a bad value: %v for numbers and booleans, %q for
// strings, "null" for null, %#v for objects and arrays.
QString badValue(const nlohmann::json &value);

} // namespace reconscope::controller::cluster::gofmt
