// OpenBLAS: the newest copy available. pip's scipy-openblas32 (a current release, its symbols
// prefixed with scipy_ so that it never clashes with another BLAS) comes first, then Debian's
// libopenblas. The prefix is detected from the exported names, not assumed from the path.
#include <string>
#include <utility>

#include "baselines/cblas_adapter.hpp"
#include "baselines/loaders.hpp"
#include "baselines/search_paths.hpp"

namespace adaptcore::bench::detail {

namespace {

std::vector<std::string> candidates() {
  std::vector<std::string> c;
  for (const std::string& site : python_site_dirs()) {
    c.push_back(site + "/scipy_openblas32/lib/libscipy_openblas.so");
  }
  c.push_back(multiarch_lib_dir() + "/openblas-pthread/libopenblas.so.0");
  c.push_back("libopenblas.so.0");
  c.push_back("libopenblas.so");
  return override_or("ADAPTCORE_OPENBLAS_LIB", std::move(c));
}

std::string parallel_name(int p) {
  switch (p) {
    case 0: return "sequential";
    case 1: return "pthreads";
    case 2: return "openmp";
    default: return "mode " + std::to_string(p);
  }
}

}  // namespace

LoadedBaseline load_openblas(int threads) {
  std::string tried;
  DynLib lib = open_first(candidates(), /*deepbind=*/true, tried);
  if (!lib.valid()) {
    return {nullptr,
            "openblas: not found (pip install scipy-openblas32 or apt-get install "
            "libopenblas-dev, or set ADAPTCORE_OPENBLAS_LIB); tried:" +
                tried};
  }
  std::string prefix;
  for (const char* p : {"scipy_", ""}) {
    if (lib.symbol((std::string(p) + "cblas_sgemm").c_str()) != nullptr) {
      prefix = p;
      break;
    }
  }
  const auto sym = [&](const char* name) { return lib.symbol((prefix + name).c_str()); };
  void* sgemm = sym("cblas_sgemm");
  auto set_threads = reinterpret_cast<void (*)(int)>(sym("openblas_set_num_threads"));
  auto get_threads = reinterpret_cast<int (*)()>(sym("openblas_get_num_threads"));
  auto config = reinterpret_cast<const char* (*)()>(sym("openblas_get_config"));
  auto corename = reinterpret_cast<const char* (*)()>(sym("openblas_get_corename"));
  auto parallel = reinterpret_cast<int (*)()>(sym("openblas_get_parallel"));
  if (sgemm == nullptr || set_threads == nullptr || config == nullptr) {
    return {nullptr, "openblas: " + lib.path() +
                         " lacks [scipy_]cblas_sgemm / openblas_set_num_threads / "
                         "openblas_get_config: not an OpenBLAS build"};
  }
  set_threads(threads);

  const std::string cfg = config() != nullptr ? config() : "?";
  std::string v = cfg;  // "OpenBLAS 0.3.34 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64"
  if (corename != nullptr && corename() != nullptr) v += std::string("; core: ") + corename();
  if (parallel != nullptr) v += "; threading: " + parallel_name(parallel());
  if (get_threads != nullptr) v += "; threads: " + std::to_string(get_threads());
  if (!prefix.empty()) v += "; symbols prefixed " + prefix;
  v += "; " + lib.path();
  // OpenBLAS reads these at load time to force a kernel core or cache size; the harness should
  // run with them unset (see bench/README.md), and the version line says when they were set.
  for (const char* var : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"}) {
    const std::string value = env_string(var);
    if (!value.empty()) v += std::string("; ") + var + "=" + value;
  }

  CblasLibrary entry;
  entry.name = "openblas";
  entry.version = std::move(v);
  entry.sgemm = sgemm;
  entry.ilp64 = cfg.find("USE64BITINT") != std::string::npos;
  entry.set_threads = [set_threads](int t) { set_threads(t); };
  entry.lib = std::move(lib);
  return {make_cblas_baseline(std::move(entry), threads), ""};
}

}  // namespace adaptcore::bench::detail
