#pragma once

#include <nlohmann/json.hpp>

#include <QString>

// Renders JSON values the way Go's fmt package prints the corresponding decoded values, so that
// error messages read as the upstream API server writes them. Internal to reconscope_schema.
namespace reconscope::controller::cluster::gofmt {

// Go's %q of a string.
QString quote(const std::string &text);
QString quote(const QString &text);
// Go's %v of a decoded JSON scalar (int64 exact, float64 shortest, strings unquoted).
QString plain(const nlohmann::json &value);
// Go's %#v of a decoded JSON value (map[string]interface {}{...}, []interface {}{...}).
QString sharp(const nlohmann::json &value);
// apimachinery field.Error's rendering of a bad value: %v for numbers and booleans, %q for
// strings, "null" for null, %#v for objects and arrays.
QString badValue(const nlohmann::json &value);

} // namespace reconscope::controller::cluster::gofmt
