// libxsmm: JIT-generated kernels for small GEMMs. prepare() dispatches the kernel(s) for the
// shape (code generation the first time a shape is seen in the process, a registry lookup
// after), which the loader times as setup cost.
//
// What libxsmm does and does not do, and so what the adapter reports:
// - It is column-major: row-major C = op(A) op(B) is run as column-major C^T = op(B)^T op(A)^T,
//   i.e. the kernel gets B as its first operand and A as its second.
// - Its JIT (1.17) generates no kernel for a transposed first operand, which is op(B) here:
//   supports() is false for transposed B (bench/README.md, "libxsmm's range").
// - It is meant for small matrices: its own threshold for "small" is LIBXSMM_MAX_MNK
//   (m*n*k <= 64^3 = 262144 in Debian's build), above which libxsmm_gemm itself hands the call
//   to BLAS. supports() follows that threshold; ADAPTCORE_LIBXSMM_MAX_MNK overrides it (0: no
//   limit). The JIT itself accepts larger shapes, but its kernels do not block for caches.
// - A kernel runs on the calling thread; parallelism is the caller's. With T > 1 threads the
//   adapter splits the rows of C (M) into T contiguous blocks run by OpenMP threads, each a
//   kernel call (so two kernels per shape: the block and the last, shorter block).
#include <omp.h>

#include <libxsmm.h>
#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

#include "baselines/call_checks.hpp"
#include "plugin_table.hpp"

namespace {

using adaptcore::bench::GemmCall;
using adaptcore::bench::plugin::shape_key;
using adaptcore::bench::plugin::ShapeKey;

int64_t max_mnk_setting() {
  const char* v = std::getenv("ADAPTCORE_LIBXSMM_MAX_MNK");
  if (v != nullptr && *v != '\0') {
    char* end = nullptr;
    const long long x = std::strtoll(v, &end, 10);
    if (end != v && *end == '\0' && x >= 0) return x;
  }
  return LIBXSMM_CONFIG_MAX_MNK;
}

struct Plan {
  int64_t block_rows = 0;  // rows of C per thread (the last block may be shorter)
  int parts = 1;
  libxsmm_smmfunction block = nullptr, last = nullptr;
};

class LibxsmmBaseline {
 public:
  explicit LibxsmmBaseline(int threads) : threads_(threads), max_mnk_(max_mnk_setting()) {
    libxsmm_init();
  }

  std::string version() const {
    return std::string("libxsmm ") + LIBXSMM_VERSION +
           "; JIT target: " + libxsmm_get_target_arch() +
           "; threading: kernels single-threaded, rows of C split "
           "over up to " +
           std::to_string(threads_) + " OpenMP threads by the adapter" +
           "; supports m*n*k <= " + (max_mnk_ > 0 ? std::to_string(max_mnk_) : "any") +
           ", B not transposed";
  }

  bool supports(const GemmCall& c) const {
    using adaptcore::bench::detail::fits_int32;
    using adaptcore::bench::detail::valid_call;
    if (!valid_call(c) || !fits_int32(c) || c.trans_b) return false;
    if (c.m == 0 || c.n == 0 || c.k == 0) return false;
    // m*n*k without overflow: each factor fits 31 bits, so compare in long double.
    const long double mnk = static_cast<long double>(c.m) * c.n * c.k;
    return max_mnk_ == 0 || mnk <= static_cast<long double>(max_mnk_);
  }

  void prepare(const GemmCall& c) {
    if (!supports(c)) throw std::runtime_error("shape outside libxsmm's supported range");
    const ShapeKey key = shape_key(c);
    if (plans_.count(key) != 0) return;
    Plan p;
    const int64_t want = std::min<int64_t>(threads_, c.m);
    p.block_rows = (c.m + want - 1) / want;
    p.parts = static_cast<int>((c.m + p.block_rows - 1) / p.block_rows);
    p.block = dispatch(c, p.block_rows);
    const int64_t last_rows = c.m - (p.parts - 1) * p.block_rows;
    p.last = last_rows == p.block_rows ? p.block : dispatch(c, last_rows);
    plans_.emplace(key, p);
  }

  void run(const GemmCall& c) {
    const Plan& p = find_or_prepare(c);
    if (p.parts == 1) {
      p.block(c.b, c.a, c.c);
      return;
    }
    // Threads beyond the blocks would idle, and a nested call gets fewer: blocks are taken by
    // index so that any number of threads covers them all.
#pragma omp parallel num_threads(p.parts)
    {
      for (int part = omp_get_thread_num(); part < p.parts; part += omp_get_num_threads()) {
        const int64_t r0 = part * p.block_rows;
        const float* a = c.trans_a ? c.a + r0 : c.a + r0 * c.lda;
        (part == p.parts - 1 ? p.last : p.block)(c.b, a, c.c + r0 * c.ldc);
      }
    }
  }

  std::string detail(const GemmCall& c) const {
    const auto it = plans_.find(shape_key(c));
    if (it == plans_.end()) return "";
    return std::to_string(it->second.parts) + " block(s) of " +
           std::to_string(it->second.block_rows) + " rows";
  }

 private:
  // The column-major kernel for `rows` rows of row-major C: M' = n, N' = rows, K' = k, first
  // operand B (ldb), second operand A (lda; transposed A is the kernel's transposed second
  // operand), beta = 0 so that C is never read.
  static libxsmm_smmfunction dispatch(const GemmCall& c, int64_t rows) {
    const auto i = [](int64_t v) { return static_cast<libxsmm_blasint>(v); };
    const libxsmm_blasint lda = i(c.ldb), ldb = i(c.lda), ldc = i(c.ldc);
    const float alpha = 1.0f, beta = 0.0f;
    const int flags = LIBXSMM_GEMM_FLAG_BETA_0 | (c.trans_a ? LIBXSMM_GEMM_FLAG_TRANS_B : 0);
    const int prefetch = LIBXSMM_PREFETCH_NONE;
    const libxsmm_smmfunction f = libxsmm_smmdispatch(i(c.n), i(rows), i(c.k), &lda, &ldb, &ldc,
                                                      &alpha, &beta, &flags, &prefetch);
    if (f == nullptr) throw std::runtime_error("libxsmm generated no kernel for this shape");
    return f;
  }

  const Plan& find_or_prepare(const GemmCall& c) {
    const ShapeKey key = shape_key(c);
    if (last_ != nullptr && last_key_ == key) return *last_;
    if (plans_.count(key) == 0) prepare(c);
    last_key_ = key;
    last_ = &plans_.at(key);
    return *last_;
  }

  int threads_;
  int64_t max_mnk_;
  std::map<ShapeKey, Plan> plans_;  // std::map: references stay valid on insertion
  ShapeKey last_key_{};
  const Plan* last_ = nullptr;
};

}  // namespace

ADAPTCORE_BASELINE_PLUGIN(LibxsmmBaseline)
