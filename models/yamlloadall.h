#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace reconscope::models {

// YAML::LoadAll, safe on hostile input. yaml-cpp 0.7's LoadAll never ends on some malformed
// streams (an unbalanced flow mapping with stray characters: the parser hands back an empty
// document again and again without consuming anything, jbeder/yaml-cpp#1319, found here by the
// API-handler fuzz target). The stream is first walked with a counting handler that stops with a
// YAML::ParserException once there are more documents than the text has document markers ("---",
// "...") plus one; only a stream that passes is loaded.
std::vector<YAML::Node> loadAllYamlDocuments(const std::string &yaml);

} // namespace reconscope::models
