#include "baselines/dynlib.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "hw/deep_bind.hpp"

namespace adaptcore::bench::detail {

namespace {

std::string loaded_path(void* handle, const std::string& fallback) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    return map->l_name;
  }
  return fallback;
}

}  // namespace

bool deepbind_allowed() {
  if (!adaptcore::deep_bind_allowed()) return false;
  const char* off = std::getenv("ADAPTCORE_BASELINES_NO_DEEPBIND");
  return off == nullptr || std::strcmp(off, "1") != 0;
}

void* DynLib::symbol(const char* name) const {
  return handle_ != nullptr ? dlsym(handle_, name) : nullptr;
}

DynLib DynLib::open(const std::string& path, bool deepbind, std::string& error) {
  int flags = RTLD_NOW | RTLD_LOCAL;
  if (deepbind && deepbind_allowed()) flags |= RTLD_DEEPBIND;
  DynLib lib;
  dlerror();
  lib.handle_ = dlopen(path.c_str(), flags);
  if (lib.handle_ == nullptr) {
    const char* e = dlerror();
    error = e != nullptr ? e : "dlopen failed";
    return lib;
  }
  lib.path_ = loaded_path(lib.handle_, path);
  return lib;
}

DynLib open_first(const std::vector<std::string>& candidates, bool deepbind, std::string& tried) {
  for (const std::string& c : candidates) {
    std::error_code ec;
    if (c.empty()) continue;
    if (c.front() == '/' && !std::filesystem::exists(c, ec)) {
      tried += "\n    " + c + ": not present";
      continue;
    }
    std::string error;
    DynLib lib = DynLib::open(c, deepbind, error);
    if (lib.valid()) return lib;
    tried += "\n    " + c + ": " + error;
  }
  return {};
}

}  // namespace adaptcore::bench::detail
