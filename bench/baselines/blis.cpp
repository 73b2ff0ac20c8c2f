// BLIS through its CBLAS layer. Debian ships one library per threading flavour in its own folder
// (blis-pthread, blis-openmp, blis-serial) and points libblis.so.4 at one of them with
// update-alternatives; the adapter loads the pthread flavour by path (no OpenMP runtime shared
// with the other libraries), then the OpenMP one, then whatever libblis.so.4 is.
#include <cstdint>
#include <string>
#include <utility>

#include "baselines/cblas_adapter.hpp"
#include "baselines/loaders.hpp"
#include "baselines/search_paths.hpp"

namespace adaptcore::bench::detail {

namespace {

// BLIS's integer type gint_t (and dim_t) is 32 or 64 bits depending on its configuration. The
// entry points below are declared with int64_t: an int64_t argument carries a correct 32-bit
// value in its low half, and a returned int is read from the low half (cast to int32_t), so the
// declarations are right for either size.
using GintFn = int64_t (*)();
using SetThreadsFn = void (*)(int64_t);
using ArchIdFn = int (*)();
using ArchStringFn = const char* (*)(int);

int query(GintFn f) { return f != nullptr ? static_cast<int32_t>(f()) : -1; }

std::vector<std::string> candidates() {
  const std::string dir = multiarch_lib_dir();
  return override_or("ADAPTCORE_BLIS_LIB",
                     {dir + "/blis-pthread/libblis.so.4", dir + "/blis-openmp/libblis.so.4",
                      "libblis.so.4", "libblis.so"});
}

}  // namespace

LoadedBaseline load_blis(int threads) {
  std::string tried;
  DynLib lib = open_first(candidates(), /*deepbind=*/true, tried);
  if (!lib.valid()) {
    return {nullptr,
            "blis: not found (apt-get install libblis-pthread-dev, or set ADAPTCORE_BLIS_LIB); "
            "tried:" +
                tried};
  }
  void* sgemm = lib.symbol("cblas_sgemm");
  auto set_threads = lib.function<SetThreadsFn>("bli_thread_set_num_threads");
  auto get_threads = lib.function<GintFn>("bli_thread_get_num_threads");
  auto version_str = lib.function<const char* (*)()>("bli_info_get_version_str");
  if (sgemm == nullptr || set_threads == nullptr || version_str == nullptr) {
    return {nullptr, "blis: " + lib.path() +
                         " lacks cblas_sgemm / bli_thread_set_num_threads (a BLIS built "
                         "without its CBLAS layer?)"};
  }
  set_threads(threads);

  const int blas_int_bits = query(lib.function<GintFn>("bli_info_get_blas_int_type_size"));
  const bool pthreads = query(lib.function<GintFn>("bli_info_get_enable_pthreads")) == 1;
  const bool openmp = query(lib.function<GintFn>("bli_info_get_enable_openmp")) == 1;
  std::string v = std::string("BLIS ") + version_str();
  v += std::string("; threading: ") + (pthreads ? "pthreads" : openmp ? "openmp" : "none");
  if (get_threads != nullptr) v += "; threads: " + std::to_string(query(get_threads));
  auto arch_id = lib.function<ArchIdFn>("bli_arch_query_id");
  auto arch_string = lib.function<ArchStringFn>("bli_arch_string");
  if (arch_id != nullptr && arch_string != nullptr) {
    v += std::string("; sub-configuration: ") + arch_string(arch_id());
  }
  v += "; BLAS integers: " + std::to_string(blas_int_bits) + "-bit";
  v += "; " + lib.path();

  CblasLibrary entry;
  entry.name = "blis";
  entry.version = std::move(v);
  entry.sgemm = sgemm;
  entry.ilp64 = blas_int_bits == 64;
  entry.set_threads = [set_threads](int t) { set_threads(t); };
  entry.lib = std::move(lib);
  return {make_cblas_baseline(std::move(entry), threads), ""};
}

}  // namespace adaptcore::bench::detail
