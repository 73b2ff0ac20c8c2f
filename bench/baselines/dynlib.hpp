// A shared library opened with dlopen, private to whoever opened it (RTLD_LOCAL), and the search
// over candidate paths that produces one.
#pragma once

#include <string>
#include <vector>

namespace adaptcore::bench::detail {

class DynLib {
 public:
  DynLib() = default;

  bool valid() const { return handle_ != nullptr; }
  void* handle() const { return handle_; }
  // The file the dynamic loader actually opened (a bare soname resolved through its cache).
  const std::string& path() const { return path_; }
  void* symbol(const char* name) const;
  template <class Fn>
  Fn function(const char* name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }

  // Opens `path` (absolute, or a bare name searched by the loader). `deepbind` makes the
  // library resolve its own symbols before the process's global ones: a vendor BLAS calls its
  // own exported sgemm_/cblas_* internally, and without it those calls would bind to another
  // BLAS already linked into the executable (e.g. a program linked with OpenBLAS). The handle
  // is never closed: BLAS runtimes keep worker threads that do not survive dlclose.
  static DynLib open(const std::string& path, bool deepbind, std::string& error);

 private:
  void* handle_ = nullptr;
  std::string path_;
};

// Opens the first candidate that loads (absolute paths that do not exist are not dlopened);
// `tried` receives one "path: reason" line per candidate that failed, for the skip message.
DynLib open_first(const std::vector<std::string>& candidates, bool deepbind, std::string& tried);

// RTLD_DEEPBIND is incompatible with the sanitizer runtimes (they refuse such a dlopen), and can
// be switched off with ADAPTCORE_BASELINES_NO_DEEPBIND=1.
bool deepbind_allowed();

}  // namespace adaptcore::bench::detail
