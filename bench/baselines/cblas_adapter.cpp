#include "baselines/cblas_adapter.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "baselines/call_checks.hpp"

namespace adaptcore::bench::detail {

namespace {

// CBLAS enumeration values (part of the CBLAS ABI, the same in every implementation).
constexpr int kRowMajor = 101;
constexpr int kColMajor = 102;
constexpr int kNoTrans = 111;
constexpr int kTrans = 112;
constexpr int kFixOffset = 173;
// MKL's packed-GEMM identifiers (mkl_cblas.h: CBLAS_IDENTIFIER, CBLAS_STORAGE).
constexpr int kAMatrix = 161;
constexpr int kBMatrix = 162;
constexpr int kPacked = 151;

template <class Int>
using SgemmFn = void (*)(int layout, int trans_a, int trans_b, Int m, Int n, Int k, float alpha,
                         const float* a, Int lda, const float* b, Int ldb, float beta, float* c,
                         Int ldc);

template <class Int>
using PackGetSizeFn = std::size_t (*)(int identifier, Int m, Int n, Int k);
template <class Int>
using PackFn = void (*)(int layout, int identifier, int trans, Int m, Int n, Int k, float alpha,
                        const float* src, Int ld, float* dest);
template <class Int>
using ComputeFn = void (*)(int layout, int trans_a, int trans_b, Int m, Int n, Int k,
                           const float* a, Int lda, const float* b, Int ldb, float beta, float* c,
                           Int ldc);

// The low-precision packed entry points (bytes: MKL_BF16 is uint16, the int8 kinds bytes).
template <class Int>
using LowpPackFn = void (*)(int layout, int identifier, int trans, Int m, Int n, Int k,
                            const void* src, Int ld, void* dest);
template <class Int>
using Bf16ComputeFn = void (*)(int layout, Int trans_a, Int trans_b, Int m, Int n, Int k,
                               float alpha, const void* a, Int lda, const void* b, Int ldb,
                               float beta, float* c, Int ldc);
template <class Int>
using S8U8ComputeFn = void (*)(int layout, Int trans_a, Int trans_b, int offset_c, Int m, Int n,
                               Int k, float alpha, const void* a, Int lda, int8_t ao, const void* b,
                               Int ldb, int8_t bo, float beta, int32_t* c, Int ldc,
                               const int32_t* co);

template <class Int>
using BatchFn = void (*)(int layout, const int* trans_a, const int* trans_b, const Int* m,
                         const Int* n, const Int* k, const float* alpha, const float** a,
                         const Int* lda, const float** b, const Int* ldb, const float* beta,
                         float** c, const Int* ldc, Int group_count, const Int* group_size);

template <class Int>
using GemmBf16Fn = void (*)(int layout, int trans_a, int trans_b, Int m, Int n, Int k, float alpha,
                            const uint16_t* a, Int lda, const uint16_t* b, Int ldb, float beta,
                            float* c, Int ldc);
template <class Int>
using GemmS8U8Fn = void (*)(int layout, int trans_a, int trans_b, int offset_c, Int m, Int n, Int k,
                            float alpha, const void* a, Int lda, int8_t ao, const void* b, Int ldb,
                            int8_t bo, float beta, int32_t* c, Int ldc, const int32_t* co);

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

  bool supports_lowp(const LowpGemmCall& c) const override {
    if (!valid_call(c) || !(lib_.ilp64 || fits_int32(c))) return false;
    switch (c.type) {
      case LowpType::Bf16: return lib_.gemm_bf16 != nullptr;
      case LowpType::U8S8:  // bo = -a_zero_point must be an int8
        return lib_.gemm_s8u8s32 != nullptr && c.a_zero_point >= -127 && c.a_zero_point <= 128;
      case LowpType::S8S8:  // bo = -(128 + a_zero_point)
        return lib_.gemm_s8u8s32 != nullptr && c.a_zero_point >= -255 && c.a_zero_point <= 0;
    }
    return false;
  }

  double prepare_lowp(const LowpGemmCall&) override {
    apply_threads();
    return 0.0;
  }

  void run_lowp(const LowpGemmCall& c) override {
    apply_threads();
    if (lib_.ilp64)
      run_lowp_as<int64_t>(c);
    else
      run_lowp_as<int32_t>(c);
  }

  bool supports_packed(const GemmCall& c) const override {
    return lib_.sgemm_pack != nullptr && lib_.sgemm_pack_get_size != nullptr &&
           lib_.sgemm_compute != nullptr && supports(c);
  }

  double pack(const GemmCall& c) override {
    apply_threads();
    const auto t0 = std::chrono::steady_clock::now();
    if (lib_.ilp64)
      pack_as<int64_t>(c);
    else
      pack_as<int32_t>(c);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  void run_packed(const GemmCall& c) override {
    apply_threads();
    const auto it = packed_.find(c.b);
    if (it == packed_.end()) throw std::runtime_error(lib_.name + ": weights not packed");
    if (lib_.ilp64)
      compute_as<int64_t>(c, it->second.data());
    else
      compute_as<int32_t>(c, it->second.data());
  }

  void release_packed(const GemmCall& c) override { packed_.erase(c.b); }

  bool supports_packed_lowp(const LowpGemmCall& c) const override {
    if (!supports_lowp(c)) return false;
    return c.type == LowpType::Bf16
               ? lib_.bf16_pack && lib_.bf16_pack_get_size && lib_.bf16_compute
               : lib_.s8u8_pack && lib_.s8u8_pack_get_size && lib_.s8u8_compute;
  }

  double pack_lowp(const LowpGemmCall& c) override {
    apply_threads();
    const auto t0 = std::chrono::steady_clock::now();
    if (lib_.ilp64)
      pack_lowp_as<int64_t>(c);
    else
      pack_lowp_as<int32_t>(c);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  void run_packed_lowp(const LowpGemmCall& c) override {
    apply_threads();
    const auto it = packed_lowp_.find(c.b);
    if (it == packed_lowp_.end()) throw std::runtime_error(lib_.name + ": weights not packed");
    if (lib_.ilp64)
      compute_lowp_as<int64_t>(c, it->second.data());
    else
      compute_lowp_as<int32_t>(c, it->second.data());
  }

  void release_packed_lowp(const LowpGemmCall& c) override { packed_lowp_.erase(c.b); }

  bool supports_batch() const override { return lib_.sgemm_batch != nullptr; }
  void run_batch(const std::vector<GemmCall>& calls, bool one_group) override {
    apply_threads();
    if (lib_.ilp64)
      batch_as<int64_t>(calls, one_group);
    else
      batch_as<int32_t>(calls, one_group);
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
  template <class Int>
  void run_lowp_as(const LowpGemmCall& c) {
    const auto I = [](int64_t v) { return static_cast<Int>(v); };
    if (c.type == LowpType::Bf16) {
      reinterpret_cast<GemmBf16Fn<Int>>(lib_.gemm_bf16)(
          kRowMajor, c.trans_a ? kTrans : kNoTrans, c.trans_b ? kTrans : kNoTrans, I(c.m), I(c.n),
          I(c.k), 1.0f, static_cast<const uint16_t*>(c.a), I(c.lda),
          static_cast<const uint16_t*>(c.b), I(c.ldb), 0.0f, static_cast<float*>(c.c), I(c.ldc));
      return;
    }
    const void* a = c.a;
    int bo = -c.a_zero_point;
    if (c.type == LowpType::S8S8) {  // A + 128 as u8, the offset taking the 128 back
      a = shifted_a(c);
      bo = -(128 + c.a_zero_point);
    }
    const int32_t no_offset = 0;
    // Column-major C^T (n x m) = op(B)^T (n x k, MKL's signed A) x op(A)^T (k x m, its unsigned B).
    reinterpret_cast<GemmS8U8Fn<Int>>(lib_.gemm_s8u8s32)(
        kColMajor, c.trans_b ? kTrans : kNoTrans, c.trans_a ? kTrans : kNoTrans, kFixOffset, I(c.n),
        I(c.m), I(c.k), 1.0f, c.b, I(c.ldb), int8_t{0}, a, I(c.lda), static_cast<int8_t>(bo), 0.0f,
        static_cast<int32_t*>(c.c), I(c.ldc), &no_offset);
  }

  // The batch's arrays: one entry per group, a group per call or one group of them all.
  template <class Int>
  void batch_as(const std::vector<GemmCall>& calls, bool one_group) {
    const std::size_t groups = one_group ? (calls.empty() ? 0 : 1) : calls.size();
    std::vector<int> ta(groups), tb(groups);
    std::vector<Int> m(groups), n(groups), k(groups), lda(groups), ldb(groups), ldc(groups),
        size(groups, one_group ? static_cast<Int>(calls.size()) : Int{1});
    std::vector<float> alpha(groups, 1.0f), beta(groups, 0.0f);
    std::vector<const float*> a, b;
    std::vector<float*> c;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const GemmCall& x = calls[i];
      a.push_back(x.a), b.push_back(x.b), c.push_back(x.c);
      if (i >= groups) continue;
      ta[i] = x.trans_a ? kTrans : kNoTrans, tb[i] = x.trans_b ? kTrans : kNoTrans;
      m[i] = static_cast<Int>(x.m), n[i] = static_cast<Int>(x.n), k[i] = static_cast<Int>(x.k);
      lda[i] = static_cast<Int>(x.lda), ldb[i] = static_cast<Int>(x.ldb);
      ldc[i] = static_cast<Int>(x.ldc);
    }
    if (groups == 0) return;
    reinterpret_cast<BatchFn<Int>>(lib_.sgemm_batch)(
        kRowMajor, ta.data(), tb.data(), m.data(), n.data(), k.data(), alpha.data(), a.data(),
        lda.data(), b.data(), ldb.data(), beta.data(), c.data(), ldc.data(),
        static_cast<Int>(groups), size.data());
  }

  template <class Int>
  void pack_as(const GemmCall& c) {
    const auto I = [](int64_t v) { return static_cast<Int>(v); };
    const std::size_t bytes = reinterpret_cast<PackGetSizeFn<Int>>(lib_.sgemm_pack_get_size)(
        kBMatrix, I(c.m), I(c.n), I(c.k));
    std::vector<float>& dest = packed_[c.b];
    dest.assign((bytes + sizeof(float) - 1) / sizeof(float), 0.0f);
    reinterpret_cast<PackFn<Int>>(lib_.sgemm_pack)(kRowMajor, kBMatrix,
                                                   c.trans_b ? kTrans : kNoTrans, I(c.m), I(c.n),
                                                   I(c.k), 1.0f, c.b, I(c.ldb), dest.data());
  }
  template <class Int>
  void compute_as(const GemmCall& c, const float* packed) {
    const auto I = [](int64_t v) { return static_cast<Int>(v); };
    reinterpret_cast<ComputeFn<Int>>(lib_.sgemm_compute)(
        kRowMajor, c.trans_a ? kTrans : kNoTrans, kPacked, I(c.m), I(c.n), I(c.k), c.a, I(c.lda),
        packed, I(c.ldb), 0.0f, c.c, I(c.ldc));
  }

  // bf16: op(B) packed as MKL's B of the row-major product. int8: op(B)^T packed as MKL's
  // (signed) A of the column-major product C^T = op(B)^T op(A)^T (run_lowp_as's mapping).
  template <class Int>
  void pack_lowp_as(const LowpGemmCall& c) {
    const auto I = [](int64_t v) { return static_cast<Int>(v); };
    std::vector<unsigned char>& dest = packed_lowp_[c.b];
    if (c.type == LowpType::Bf16) {
      const std::size_t bytes = reinterpret_cast<PackGetSizeFn<Int>>(lib_.bf16_pack_get_size)(
          kBMatrix, I(c.m), I(c.n), I(c.k));
      dest.assign(bytes, 0);
      reinterpret_cast<LowpPackFn<Int>>(lib_.bf16_pack)(kRowMajor, kBMatrix,
                                                        c.trans_b ? kTrans : kNoTrans, I(c.m),
                                                        I(c.n), I(c.k), c.b, I(c.ldb), dest.data());
      return;
    }
    const std::size_t bytes = reinterpret_cast<PackGetSizeFn<Int>>(lib_.s8u8_pack_get_size)(
        kAMatrix, I(c.n), I(c.m), I(c.k));
    dest.assign(bytes, 0);
    reinterpret_cast<LowpPackFn<Int>>(lib_.s8u8_pack)(kColMajor, kAMatrix,
                                                      c.trans_b ? kTrans : kNoTrans, I(c.n), I(c.m),
                                                      I(c.k), c.b, I(c.ldb), dest.data());
  }
  template <class Int>
  void compute_lowp_as(const LowpGemmCall& c, const void* packed) {
    const auto I = [](int64_t v) { return static_cast<Int>(v); };
    if (c.type == LowpType::Bf16) {
      reinterpret_cast<Bf16ComputeFn<Int>>(lib_.bf16_compute)(
          kRowMajor, I(c.trans_a ? kTrans : kNoTrans), I(kPacked), I(c.m), I(c.n), I(c.k), 1.0f,
          c.a, I(c.lda), packed, I(c.ldb), 0.0f, static_cast<float*>(c.c), I(c.ldc));
      return;
    }
    const void* a = c.a;
    int bo = -c.a_zero_point;
    if (c.type == LowpType::S8S8) {
      a = shifted_a(c);
      bo = -(128 + c.a_zero_point);
    }
    const int32_t no_offset = 0;
    reinterpret_cast<S8U8ComputeFn<Int>>(lib_.s8u8_compute)(
        kColMajor, I(kPacked), I(c.trans_a ? kTrans : kNoTrans), kFixOffset, I(c.n), I(c.m), I(c.k),
        1.0f, packed, I(c.ldb), int8_t{0}, a, I(c.lda), static_cast<int8_t>(bo), 0.0f,
        static_cast<int32_t*>(c.c), I(c.ldc), &no_offset);
  }

  // The stored A of an s8s8 call with 128 added to every used byte (xor 0x80), in a scratch
  // buffer kept between calls.
  const void* shifted_a(const LowpGemmCall& c) {
    const int64_t rows = c.trans_a ? c.k : c.m, cols = c.trans_a ? c.m : c.k;
    const std::size_t bytes = static_cast<std::size_t>(rows > 0 ? (rows - 1) * c.lda + cols : 0);
    if (scratch_.size() < bytes) scratch_.resize(bytes);
    const auto* src = static_cast<const uint8_t*>(c.a);
    for (int64_t r = 0; r < rows; ++r) {
      const uint8_t* s = src + r * c.lda;
      uint8_t* d = scratch_.data() + r * c.lda;
      for (int64_t j = 0; j < cols; ++j) d[j] = static_cast<uint8_t>(s[j] ^ 0x80u);
    }
    return scratch_.data();
  }

  void apply_threads() {
    if (*applied_ == threads_) return;
    lib_.set_threads(threads_);
    *applied_ = threads_;
  }

  CblasLibrary lib_;
  int threads_;
  std::shared_ptr<int> applied_;
  std::vector<uint8_t> scratch_;
  std::map<const float*, std::vector<float>> packed_;  // packed B by the caller's B pointer
  std::map<const void*, std::vector<unsigned char>> packed_lowp_;
};

}  // namespace

std::unique_ptr<Baseline> make_cblas_baseline(CblasLibrary library, int threads) {
  return std::make_unique<CblasBaseline>(std::move(library), threads);
}

}  // namespace adaptcore::bench::detail
