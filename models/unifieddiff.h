#pragma once

#include <string>
#include <string_view>

namespace reconscope::models {

// The unified diff go-difflib (a port of Python's difflib) writes for two texts, as
// apimachinery's diff.Diff prints it in kube-apiserver's messages: each text split after every
// "\n" (the last line given one), lines matched by difflib's SequenceMatcher (its "popular
// line" heuristic included, for texts of 200 lines or more), hunks with `context` lines of
// context around the changes under "@@ -start,count +start,count @@" headers, and no file
// header. Empty when the texts are equal.
std::string unifiedDiff(std::string_view a, std::string_view b, int context = 3);

} // namespace reconscope::models
