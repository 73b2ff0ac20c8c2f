// Where the loaders look for vendor libraries and for the project's adapter plugins. Each list is
// in priority order, without duplicates, and holds only folders that exist.
#pragma once

#include <string>
#include <vector>

namespace adaptcore::bench::detail {

// The value of an environment variable, empty when unset.
std::string env_string(const char* name);

// Python installation prefixes pip installs into: ADAPTCORE_PYTHON_PREFIX (':'-separated),
// VIRTUAL_ENV, CONDA_PREFIX, the `python3` prefix found when the project was configured, and
// /usr/local (pip as root on a Debian python). Wheels such as mkl and onednn put their
// libraries in <prefix>/lib.
std::vector<std::string> python_prefixes();
// <prefix>/lib/python3.*/{site,dist}-packages of each prefix (where scipy-openblas32 lives).
std::vector<std::string> python_site_dirs();
// Folders for the adapter plugins: ADAPTCORE_BASELINE_PLUGIN_DIR, the executable's folder, and
// the build-tree folder the plugins were built into.
std::vector<std::string> plugin_dirs();
// The multiarch library folder (/usr/lib/x86_64-linux-gnu), for Debian's flavoured libraries.
std::string multiarch_lib_dir();

}  // namespace adaptcore::bench::detail
