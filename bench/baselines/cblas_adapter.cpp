#include "baselines/cblas_adapter.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "baselines/call_checks.hpp"

namespace adaptcore::bench::detail {

namespace {

// CBLAS enumeration values (part of the CBLAS ABI, the same in every implementation).
constexpr int kRowMajor = 101;
constexpr int kNoTrans = 111;
constexpr int kTrans = 112;

template <class Int>
using SgemmFn = void (*)(int layout, int trans_a, int trans_b, Int m, Int n, Int k, float alpha,
                         const float* a, Int lda, const float* b, Int ldb, float beta, float* c,
                         Int ldc);

// The thread count last applied to each library, keyed by its handle: the setting is global to
// a library, so an object re-applies its own count only when another object changed it, and a
// call whose count is already in place pays one comparison.
std::shared_ptr<int> applied_threads_for(void* handle) {
  static std::mutex mutex;
  static std::map<void*, std::shared_ptr<int>> applied;
  std::lock_guard lock(mutex);
  auto& slot = applied[handle];
  if (!slot) slot = std::make_shared<int>(0);
  return slot;
}

class CblasBaseline final : public Baseline {
 public:
  CblasBaseline(CblasLibrary library, int threads)
      : lib_(std::move(library)),
        threads_(threads),
        applied_(applied_threads_for(lib_.lib.handle())) {
    apply_threads();
  }

  std::string name() const override { return lib_.name; }
  std::string version() const override { return lib_.version; }

  bool supports(const GemmCall& call) const override {
    return valid_call(call) && (lib_.ilp64 || fits_int32(call));
  }

  double prepare(const GemmCall&) override {
    apply_threads();
    return 0.0;  // a BLAS call has no per-shape setup
  }

  void run(const GemmCall& c) override {
    apply_threads();
    const int ta = c.trans_a ? kTrans : kNoTrans;
    const int tb = c.trans_b ? kTrans : kNoTrans;
    if (lib_.ilp64) {
      reinterpret_cast<SgemmFn<int64_t>>(lib_.sgemm)(kRowMajor, ta, tb, c.m, c.n, c.k, 1.0f, c.a,
                                                     c.lda, c.b, c.ldb, 0.0f, c.c, c.ldc);
    } else {
      const auto i32 = [](int64_t v) { return static_cast<int32_t>(v); };
      reinterpret_cast<SgemmFn<int32_t>>(lib_.sgemm)(kRowMajor, ta, tb, i32(c.m), i32(c.n),
                                                     i32(c.k), 1.0f, c.a, i32(c.lda), c.b,
                                                     i32(c.ldb), 0.0f, c.c, i32(c.ldc));
    }
  }

 private:
  void apply_threads() {
    if (*applied_ == threads_) return;
    lib_.set_threads(threads_);
    *applied_ = threads_;
  }

  CblasLibrary lib_;
  int threads_;
  std::shared_ptr<int> applied_;
};

}  // namespace

std::unique_ptr<Baseline> make_cblas_baseline(CblasLibrary library, int threads) {
  return std::make_unique<CblasBaseline>(std::move(library), threads);
}

}  // namespace adaptcore::bench::detail
