// Vendor-library baselines of the benchmark harness: one interface, one adapter per library
// (MKL, oneDNN, OpenBLAS, BLIS, Eigen, libxsmm), each loaded at run time.
//
// Several of these libraries export the same symbols (cblas_sgemm, sgemm_, ...), so none of
// them is linked into the executable: load_baseline() dlopens the vendor library (or a small
// adapter plugin the project builds for the header-only or C++ ones) with RTLD_LOCAL, so that
// any number of them can live in one process. A library that is not installed yields a null
// `lib` and a message saying why it is skipped; nothing here aborts a run. bench/README.md
// ("Vendor baselines") says where each library is searched for and how its threads are set.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace adaptcore::bench {

struct GemmCall {  // row-major C[m x n] = op(A)[m x k] * op(B)[k x n] (alpha 1, beta 0)
  int64_t m, n, k;
  bool trans_a, trans_b;  // A stored k x m / B stored n x k
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  float* c;
  int64_t ldc;
};

// Low-precision calls, row-major with alpha 1 and beta 0 like GemmCall:
//   Bf16: A, B bf16 (bit patterns, uint16_t), C fp32;
//   U8S8: A u8, B s8, C int32 = (op(A) - a_zero_point) op(B);
//   S8S8: A s8, B s8, C int32 = (op(A) - a_zero_point) op(B).
// A library that has no such operation says so through supports_lowp() (recorded as
// "unsupported"); bench/README.md lists which vendor entry point each adapter calls.
enum class LowpType { Bf16, U8S8, S8S8 };
struct LowpGemmCall {
  LowpType type;
  int64_t m, n, k;
  bool trans_a, trans_b;  // A stored k x m / B stored n x k
  const void* a;
  int64_t lda;  // elements
  const void* b;
  int64_t ldb;
  void* c;  // float (Bf16) or int32_t
  int64_t ldc;
  int32_t a_zero_point = 0;  // int8 types only
};

// One library behind the common interface. An object is meant for one calling thread at a
// time (the harness times one call after another); several objects, of the same or of different
// libraries, may coexist in a process. Thread counts are fixed at load time and re-applied by
// each call when another object of the same library changed the library's global setting.
class Baseline {
 public:
  virtual ~Baseline() = default;
  virtual std::string name() const = 0;  // "mkl", "onednn", "openblas", "blis", "eigen", "libxsmm"
  // What the library says about itself: version, threading runtime and thread count, and the
  // code path it selected where it tells (e.g. OpenBLAS's core, MKL's branch, BLIS's config).
  virtual std::string version() const = 0;
  // False when the library cannot run this call at all or only outside its documented range
  // (libxsmm: small GEMMs without transposed B); the harness then records "unsupported".
  virtual bool supports(const GemmCall&) const = 0;
  // Per-shape setup (oneDNN primitive creation, libxsmm JIT dispatch); returns its seconds,
  // 0 if the library has none. Throws std::runtime_error if the library rejects the call.
  virtual double prepare(const GemmCall&) = 0;
  // Valid after prepare() for the same shape, transposes and leading dimensions; the pointers
  // may differ between calls. An unprepared shape is prepared on the spot (and then costs its
  // setup inside run()). Throws std::runtime_error if the library rejects the call.
  virtual void run(const GemmCall&) = 0;
  // Added member: what the library will run for this call, where it tells (oneDNN's
  // implementation name, libxsmm's kernel split); empty otherwise. Valid after prepare().
  virtual std::string detail(const GemmCall&) const { return {}; }
  // Added members: the low-precision operations, with the same contract as supports, prepare
  // and run. A library without them keeps these defaults.
  virtual bool supports_lowp(const LowpGemmCall&) const { return false; }
  virtual double prepare_lowp(const LowpGemmCall&) {
    throw std::runtime_error(name() + ": no low-precision GEMM");
  }
  virtual void run_lowp(const LowpGemmCall&) {
    throw std::runtime_error(name() + ": no low-precision GEMM");
  }
  // Added members: weights packed ahead of time (`adaptcore bench --packed`; MKL's
  // cblas_sgemm_pack / cblas_sgemm_compute, oneDNN's matmul with its weights reordered once into
  // the blocked layout the primitive chose). pack() packs op(B) of the call, remembered by its B
  // pointer (every operand set of a shape has weights of its own), and returns its seconds;
  // run_packed() runs the call on the weights packed for its B pointer; release_packed() frees
  // the copy packed for the call's B pointer (the harness calls it when a shape is done).
  virtual bool supports_packed(const GemmCall&) const { return false; }
  virtual double pack(const GemmCall&) {
    throw std::runtime_error(name() + ": no packed-weights GEMM");
  }
  virtual void run_packed(const GemmCall&) {
    throw std::runtime_error(name() + ": no packed-weights GEMM");
  }
  virtual void release_packed(const GemmCall&) {}
  // The same for the low-precision operations (bf16 and int8 weights packed ahead of time).
  virtual bool supports_packed_lowp(const LowpGemmCall&) const { return false; }
  virtual double pack_lowp(const LowpGemmCall&) {
    throw std::runtime_error(name() + ": no packed low-precision GEMM");
  }
  virtual void run_packed_lowp(const LowpGemmCall&) {
    throw std::runtime_error(name() + ": no packed low-precision GEMM");
  }
  virtual void release_packed_lowp(const LowpGemmCall&) {}
  // Added members: the call with a fused epilogue (adaptcore_bench_epilogue): `ops` as
  // adaptcore::PostOp's kinds (adaptcore/types.hpp) with their data; the first call of a shape
  // and list prepares it. False from supports_post_ops: the library has none.
  struct PostOp {
    int kind;
    const float* data;
    int64_t ld;
  };
  // Added members: independent calls through one batched entry point (adaptcore_bench_moe):
  // MKL's cblas_sgemm_batch with one group per call (each call its own M), or with
  // `one_group`, every call of one shape in a single group (a padded batched GEMM). False from
  // supports_batch: the library has none.
  virtual bool supports_batch() const { return false; }
  virtual void run_batch(const std::vector<GemmCall>&, bool /*one_group*/) {
    throw std::runtime_error(name() + ": no batched GEMM");
  }
  virtual bool supports_post_ops() const { return false; }
  virtual void run_post_ops(const GemmCall&, const std::vector<PostOp>&) {
    throw std::runtime_error(name() + ": no fused epilogue");
  }
};

struct LoadedBaseline {
  std::unique_ptr<Baseline> lib;
  std::string message;  // lib null => message says why it is skipped
};

std::vector<std::string> baseline_names();  // all known names, in a stable order
// Loads one library set to `threads` threads (>= 1). Never throws for a missing or broken
// library: the message says what was tried.
LoadedBaseline load_baseline(const std::string& name, int threads);

}  // namespace adaptcore::bench
