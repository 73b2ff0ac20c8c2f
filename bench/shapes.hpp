// Shape suites of the library comparison benchmark (see bench/README.md for the rules).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace adaptcore::bench {

struct Shape {
  int64_t m, n, k;
};

// "llm100", "square", "square-all", "demo"; false if the name is unknown.
bool suite_shapes(const std::string& name, std::vector<Shape>& out);
// Comma-separated "MxNxK" list, e.g. "1x4096x4096,64x11008x4096"; false on a syntax error.
bool parse_shapes(const std::string& text, std::vector<Shape>& out, std::string& error);
const char* suite_names();  // for help text

}  // namespace adaptcore::bench
