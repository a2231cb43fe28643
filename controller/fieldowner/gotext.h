#pragma once

#include <nlohmann/json.hpp>

#include <string>

// Text as Go writes it where field ownership shows it: JSON inside fieldsV1 keys (encoding/json
// with HTML escaping, map keys sorted) and the %q / %v of conflict paths.
namespace reconscope::controller::fieldowner::gotext {

// Compact JSON as Go's encoding/json writes the value: keys sorted, "<", ">", "&", U+2028 and
// U+2029 escaped, invalid UTF-8 as U+FFFD, floats in Go's shortest form ("1e-7", "1e+21").
std::string json(const nlohmann::json &value);
// strconv.Quote: a double-quoted Go string literal.
std::string quote(const std::string &text);
// fmt's %v of a float64: the shortest %g ("1.5", "1e+06").
std::string floatV(double value);

} // namespace reconscope::controller::fieldowner::gotext
