#include "baselines/search_paths.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string_view>

// Set by bench/baselines/CMakeLists.txt; empty defaults keep the file compilable on its own.
#ifndef ADAPTCORE_BASELINES_PYTHON_PREFIX
#define ADAPTCORE_BASELINES_PYTHON_PREFIX ""
#endif
#ifndef ADAPTCORE_BASELINES_PLUGIN_BUILD_DIR
#define ADAPTCORE_BASELINES_PLUGIN_BUILD_DIR ""
#endif
#ifndef ADAPTCORE_BASELINES_MULTIARCH
#define ADAPTCORE_BASELINES_MULTIARCH "x86_64-linux-gnu"
#endif

namespace fs = std::filesystem;

namespace adaptcore::bench::detail {

namespace {

bool is_dir(const std::string& p) {
  std::error_code ec;
  return !p.empty() && fs::is_directory(p, ec);
}

void add_dir(std::vector<std::string>& dirs, const std::string& p) {
  if (!is_dir(p)) return;
  std::error_code ec;
  std::string canonical = fs::weakly_canonical(p, ec).string();
  if (ec) canonical = p;
  if (std::find(dirs.begin(), dirs.end(), canonical) == dirs.end()) dirs.push_back(canonical);
}

void add_list(std::vector<std::string>& dirs, std::string_view list) {
  while (!list.empty()) {
    const std::size_t colon = list.find(':');
    add_dir(dirs, std::string(list.substr(0, colon)));
    if (colon == std::string_view::npos) break;
    list.remove_prefix(colon + 1);
  }
}

}  // namespace

std::string env_string(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::vector<std::string> python_prefixes() {
  std::vector<std::string> dirs;
  add_list(dirs, env_string("ADAPTCORE_PYTHON_PREFIX"));
  add_dir(dirs, env_string("VIRTUAL_ENV"));
  add_dir(dirs, env_string("CONDA_PREFIX"));
  add_dir(dirs, ADAPTCORE_BASELINES_PYTHON_PREFIX);
  add_dir(dirs, "/usr/local");
  return dirs;
}

std::vector<std::string> python_site_dirs() {
  std::vector<std::string> dirs;
  for (const std::string& prefix : python_prefixes()) {
    std::error_code ec;
    std::vector<std::string> versions;  // python3.11, ... (usually one)
    for (const auto& e : fs::directory_iterator(prefix + "/lib", ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("python3", 0) == 0 && e.is_directory(ec)) versions.push_back(e.path());
    }
    std::sort(versions.rbegin(), versions.rend());
    for (const std::string& v : versions) {
      add_dir(dirs, v + "/site-packages");
      add_dir(dirs, v + "/dist-packages");
    }
  }
  return dirs;
}

std::vector<std::string> plugin_dirs() {
  std::vector<std::string> dirs;
  add_list(dirs, env_string("ADAPTCORE_BASELINE_PLUGIN_DIR"));
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) add_dir(dirs, exe.parent_path().string());
  add_dir(dirs, ADAPTCORE_BASELINES_PLUGIN_BUILD_DIR);
  return dirs;
}

std::string multiarch_lib_dir() { return std::string("/usr/lib/") + ADAPTCORE_BASELINES_MULTIARCH; }

}  // namespace adaptcore::bench::detail
