// adaptcore C++ API: GEMM for dynamic shapes.
//
//   C = alpha * op(A) * op(B) + beta * C
//
// Each call is classified (2D taxonomy), planned by an analytical model, cached by shape, and
// executed by ISA-specific micro-kernels on a persistent thread pool. Reference-BLAS semantics:
// beta == 0 never reads C, alpha == 0 never reads A or B, m == 0 or n == 0 returns at once,
// k == 0 scales C by beta, and padding beyond a leading dimension is never written.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "adaptcore/hardware.hpp"
#include "adaptcore/types.hpp"

namespace adaptcore {

namespace detail {
class ContextImpl;
}

struct ContextOptions {
  int threads = 0;                // 0: ADAPTCORE_NUM_THREADS if set, else all cores
  Isa isa = Isa::Auto;            // Auto: ADAPTCORE_ISA if set, else the best supported
  std::string profile_path;       // JSON hardware profile; empty: ADAPTCORE_HW_PROFILE or detect
  bool read_environment = true;   // honour the ADAPTCORE_* variables above
  std::string plan_file;          // plan file to preload; empty: ADAPTCORE_PLAN_FILE if set
};

// Everything a GEMM call needs besides its operands: thread count, hardware profile, ISA path,
// plan cache and thread pool. Thread-safe: many threads may call gemm on one context.
class Context {
 public:
  Context();
  explicit Context(const ContextOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Construction status: a bad profile file or unsupported forced ISA is reported here and the
  // context falls back to detection (so it is always usable).
  Status init_status() const noexcept;
  const std::string& init_message() const noexcept;

  Status set_threads(int threads) noexcept;
  int threads() const noexcept;

  // Forces a path; UnsupportedIsa if the CPU lacks it. Auto restores the best path.
  Status set_isa(Isa isa) noexcept;
  Isa isa() const noexcept;  // the active path, never Auto

  const HardwareProfile& hardware() const noexcept;
  Status load_hardware_profile(const std::string& path, std::string* error = nullptr);

  std::size_t cached_plans() const noexcept;
  void clear_plan_cache() noexcept;

  // Plan files (`adaptcore precompile`): load adds every plan of the file to the cache, or
  // nothing if the file is unreadable, corrupt, made for another library version, CPU (hardware
  // profile) or ISA path, or holds any invalid plan (InvalidPlanFile; the reason goes to
  // *error and to stderr). save writes the cached plans of the active ISA.
  Status load_plan_file(const std::string& path, std::string* error = nullptr);
  Status save_plan_file(const std::string& path, std::string* error = nullptr);

  detail::ContextImpl& impl() noexcept { return *impl_; }
  const detail::ContextImpl& impl() const noexcept { return *impl_; }

 private:
  std::unique_ptr<detail::ContextImpl> impl_;
};

// The process-wide context used by the C API and by calls without an explicit context.
Context& default_context();

Status gemm(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
            float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
            float* c, int64_t ldc, Context& ctx = default_context());

// View form: each operand carries its own layout, so mixed layouts are allowed. A and B are
// given as stored; transa/transb apply op(). Shapes must compose: op(A) is C.rows x k,
// op(B) is k x C.cols.
Status gemm(Trans transa, Trans transb, float alpha, MatrixView<const float> a,
            MatrixView<const float> b, float beta, MatrixView<float> c,
            Context& ctx = default_context());

const char* version() noexcept;

}  // namespace adaptcore
