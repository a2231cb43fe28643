#pragma once

#include <string>

// The string formats the apiextensions-apiserver checks in custom resources (its
// supportedFormats); any other format name is accepted without a check, as upstream does.
// Internal to reconscope_schema.
namespace reconscope::controller::cluster::formats {

bool isKnown(const std::string &format);
bool isValid(const std::string &format, const std::string &value);

} // namespace reconscope::controller::cluster::formats
