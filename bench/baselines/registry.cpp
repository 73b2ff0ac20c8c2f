// The known baselines by name, and load_baseline(), which hands each name to its loader.
#include <exception>
#include <utility>

#include "baselines/baseline.hpp"
#include "baselines/loaders.hpp"
#include "baselines/search_paths.hpp"

namespace adaptcore::bench {

namespace detail {

std::vector<std::string> override_or(const char* env_name, std::vector<std::string> defaults) {
  const std::string path = env_string(env_name);
  if (path.empty()) return defaults;
  return {path};
}

}  // namespace detail

std::vector<std::string> baseline_names() {
  return {"mkl", "onednn", "openblas", "blis", "eigen", "libxsmm"};
}

LoadedBaseline load_baseline(const std::string& name, int threads) {
  if (threads < 1) return {nullptr, name + ": thread count must be at least 1"};
  try {
    if (name == "mkl") return detail::load_mkl(threads);
    if (name == "openblas") return detail::load_openblas(threads);
    if (name == "blis") return detail::load_blis(threads);
    if (name == "onednn" || name == "eigen" || name == "libxsmm") {
      return detail::load_plugin(name, threads);
    }
  } catch (const std::exception& e) {  // e.g. bad_alloc: a skip, never the end of a run
    return {nullptr, name + ": " + e.what()};
  }
  std::string known;
  for (const std::string& n : baseline_names()) known += (known.empty() ? "" : ", ") + n;
  return {nullptr, "unknown baseline '" + name + "' (known: " + known + ")"};
}

}  // namespace adaptcore::bench
