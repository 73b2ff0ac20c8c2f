// Intel MKL through libmkl_rt (the single dynamic library that loads MKL's interface, threading
// and kernel layers at run time). pip's mkl wheel installs libmkl_rt.so.3 into <prefix>/lib;
// older releases and system installs have libmkl_rt.so.2.
#include <string>
#include <utility>

#include "baselines/cblas_adapter.hpp"
#include "baselines/loaders.hpp"
#include "baselines/search_paths.hpp"

namespace adaptcore::bench::detail {

namespace {

// mkl_service.h values (MKL's documented ABI).
constexpr int kInterfaceLp64 = 0;
constexpr int kInterfaceIlp64Bit = 1;  // set in ILP64 (and ILP64 + GNU) layers
constexpr int kThreadingIntel = 0;

std::string threading_name(int layer) {
  switch (layer) {
    case 0: return "intel (libiomp5)";
    case 1: return "sequential";
    case 3: return "gnu (libgomp)";
    case 4: return "tbb";
    default: return "layer " + std::to_string(layer);
  }
}

// MKL_Get_Version()'s structure (mkl_types.h). Releases before 2025 had no PatchVersion, but
// the three ints were padded to the same 16 bytes, so the string pointers sit at the same
// offsets in both layouts. Processor names the code path MKL selected for this CPU.
struct MklVersion {
  int major, minor, update, patch;
  const char* product_status;
  const char* build;
  const char* processor;
  const char* platform;
};

std::vector<std::string> candidates() {
  std::vector<std::string> c;
  for (const std::string& prefix : python_prefixes()) {
    for (const char* so : {"libmkl_rt.so.3", "libmkl_rt.so.2", "libmkl_rt.so"}) {
      c.push_back(prefix + "/lib/" + so);
    }
  }
  for (const char* so : {"libmkl_rt.so.3", "libmkl_rt.so.2", "libmkl_rt.so"}) c.push_back(so);
  return override_or("ADAPTCORE_MKL_LIB", std::move(c));
}

}  // namespace

LoadedBaseline load_mkl(int threads) {
  std::string tried;
  DynLib lib = open_first(candidates(), /*deepbind=*/true, tried);
  if (!lib.valid()) {
    return {nullptr,
            "mkl: libmkl_rt not found (pip install mkl-devel, or set ADAPTCORE_MKL_LIB); "
            "tried:" +
                tried};
  }
  using IntFn = int (*)(int);
  using VoidIntFn = void (*)(int);
  auto sgemm = lib.symbol("cblas_sgemm");
  auto set_threads = lib.function<VoidIntFn>("MKL_Set_Num_Threads");
  auto max_threads = lib.function<int (*)()>("MKL_Get_Max_Threads");
  auto get_dynamic = lib.function<int (*)()>("MKL_Get_Dynamic");
  auto set_interface = lib.function<IntFn>("MKL_Set_Interface_Layer");
  auto set_threading = lib.function<IntFn>("MKL_Set_Threading_Layer");
  auto version_string = lib.function<void (*)(char*, int)>("MKL_Get_Version_String");
  auto get_version = lib.function<void (*)(MklVersion*)>("MKL_Get_Version");
  if (sgemm == nullptr || set_threads == nullptr || max_threads == nullptr ||
      set_interface == nullptr || set_threading == nullptr || version_string == nullptr) {
    return {nullptr, "mkl: " + lib.path() +
                         " lacks the expected entry points (cblas_sgemm, "
                         "MKL_Set_Num_Threads, MKL_Set_*_Layer, MKL_Get_Version_String)"};
  }
  // The layers must be chosen before any other MKL call. LP64 (32-bit integers) unless the
  // environment already forced a layer (then MKL keeps it and the adapter follows it).
  const int interface = set_interface(kInterfaceLp64);
  const std::string env_threading = env_string("MKL_THREADING_LAYER");
  const int threading = env_threading.empty() ? set_threading(kThreadingIntel) : -1;
  set_threads(threads);

  char text[512] = {};
  version_string(text, static_cast<int>(sizeof text) - 1);
  std::string v = text;
  v += "; threading: " +
       (env_threading.empty() ? threading_name(threading) : "MKL_THREADING_LAYER=" + env_threading);
  v += "; max threads: " + std::to_string(max_threads());
  if (get_dynamic != nullptr) v += get_dynamic() != 0 ? " (dynamic)" : " (fixed)";
  if (get_version != nullptr) {
    MklVersion mv{};
    get_version(&mv);
    if (mv.processor != nullptr) v += std::string("; code path: ") + mv.processor;
  }
  v += (interface & kInterfaceIlp64Bit) != 0 ? "; ILP64" : "; LP64";
  v += "; " + lib.path();

  CblasLibrary entry;
  entry.name = "mkl";
  entry.version = std::move(v);
  entry.sgemm = sgemm;
  entry.ilp64 = (interface & kInterfaceIlp64Bit) != 0;
  entry.set_threads = [set_threads](int t) { set_threads(t); };
  entry.gemm_bf16 = lib.symbol("cblas_gemm_bf16bf16f32");
  entry.gemm_s8u8s32 = lib.symbol("cblas_gemm_s8u8s32");
  entry.sgemm_pack_get_size = lib.symbol("cblas_sgemm_pack_get_size");
  entry.sgemm_pack = lib.symbol("cblas_sgemm_pack");
  entry.sgemm_compute = lib.symbol("cblas_sgemm_compute");
  entry.sgemm_batch = lib.symbol("cblas_sgemm_batch");
  entry.bf16_pack_get_size = lib.symbol("cblas_gemm_bf16bf16f32_pack_get_size");
  entry.bf16_pack = lib.symbol("cblas_gemm_bf16bf16f32_pack");
  entry.bf16_compute = lib.symbol("cblas_gemm_bf16bf16f32_compute");
  entry.s8u8_pack_get_size = lib.symbol("cblas_gemm_s8u8s32_pack_get_size");
  entry.s8u8_pack = lib.symbol("cblas_gemm_s8u8s32_pack");
  entry.s8u8_compute = lib.symbol("cblas_gemm_s8u8s32_compute");
  entry.lib = std::move(lib);
  return {make_cblas_baseline(std::move(entry), threads), ""};
}

}  // namespace adaptcore::bench::detail
