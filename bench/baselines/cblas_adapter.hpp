// The adapter shared by the libraries called through their CBLAS sgemm (MKL, OpenBLAS, BLIS):
// each library's loader finds the entry points and its thread setter, this class makes the
// calls. Row-major CBLAS takes the stored operands as they are, so transposes and padded
// leading dimensions pass straight through.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "baselines/baseline.hpp"
#include "baselines/dynlib.hpp"

namespace adaptcore::bench::detail {

struct CblasLibrary {
  std::string name;       // baseline name
  std::string version;    // for Baseline::version()
  DynLib lib;             // kept for its lifetime (never closed, see DynLib::open)
  void* sgemm = nullptr;  // cblas_sgemm, possibly under a prefixed name
  bool ilp64 = false;     // 64-bit BLAS integers
  // Sets the library's global thread count.
  std::function<void(int)> set_threads;
  // Low-precision entry points where the library has them (MKL), else null:
  // cblas_gemm_bf16bf16f32 (bf16 A and B, fp32 C) and cblas_gemm_s8u8s32, which takes A signed
  // and B unsigned and adds its offsets, C = (op(A) + ao)(op(B) + bo) + co. The adapter runs
  // u8s8 as the transposed product C^T = op(B)^T op(A)^T in column-major (the same bytes, no
  // copy: our s8 B becomes its A, our u8 A its B with bo = -a_zero_point), and s8s8 the same
  // way after adding 128 to A into a scratch buffer (timed: part of the call) with
  // bo = -(128 + a_zero_point).
  void* gemm_bf16 = nullptr;
  void* gemm_s8u8s32 = nullptr;
  // Packed sgemm where the library has it (MKL): cblas_sgemm_pack_get_size, cblas_sgemm_pack
  // and cblas_sgemm_compute (B packed, A as stored).
  void* sgemm_pack_get_size = nullptr;
  void* sgemm_pack = nullptr;
  void* sgemm_compute = nullptr;
  // Packed low-precision GEMM where the library has it (MKL): cblas_gemm_bf16bf16f32_pack* /
  // _compute (B packed), cblas_gemm_s8u8s32_pack* / _compute (the transposed product's signed
  // A, which is our s8 B, packed).
  void* bf16_pack_get_size = nullptr;
  void* bf16_pack = nullptr;
  void* bf16_compute = nullptr;
  void* s8u8_pack_get_size = nullptr;
  void* s8u8_pack = nullptr;
  void* s8u8_compute = nullptr;
  // Batched sgemm where the library has it (MKL): cblas_sgemm_batch (groups of calls).
  void* sgemm_batch = nullptr;
};

// Applies `threads` once, then wraps the library. `library.sgemm` and `set_threads` are set.
std::unique_ptr<Baseline> make_cblas_baseline(CblasLibrary library, int threads);

}  // namespace adaptcore::bench::detail
