// oneDNN's fp32 matmul primitive, and for the low-precision dtypes of `adaptcore bench --dtype`
// its bf16 matmul primitive (bf16 x bf16 -> fp32) and its integer GEMM functions
// dnnl_gemm_u8s8s32 / dnnl_gemm_s8s8s32 (no setup: plain C calls, row-major like CBLAS). Creating
// the primitive (descriptor, implementation choice, JIT code generation) is the per-shape setup
// that prepare() does and the loader times; run() only points the prepared memory objects at the
// call's buffers and executes. Each operand is described with its real strides, so transposes and
// padded leading dimensions need no copy.
#include <dnnl.hpp>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "baselines/call_checks.hpp"
#include "plugin_table.hpp"

#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#endif

namespace {

using adaptcore::bench::GemmCall;
using adaptcore::bench::LowpGemmCall;
using adaptcore::bench::LowpType;
using adaptcore::bench::plugin::shape_key;
using adaptcore::bench::plugin::ShapeKey;
using dt = dnnl::memory::data_type;

std::string runtime_name(unsigned r) {
  switch (r) {
    case DNNL_RUNTIME_SEQ: return "sequential";
    case DNNL_RUNTIME_OMP: return "OpenMP";
    case DNNL_RUNTIME_TBB: return "TBB";
    case DNNL_RUNTIME_THREADPOOL: return "threadpool";
    case DNNL_RUNTIME_SYCL: return "SYCL";
    default: return "runtime " + std::to_string(r);
  }
}

std::string isa_name(dnnl::cpu_isa isa) {
  using dnnl::cpu_isa;
  switch (isa) {
    case cpu_isa::sse41: return "sse41";
    case cpu_isa::avx: return "avx";
    case cpu_isa::avx2: return "avx2";
    case cpu_isa::avx512_core: return "avx512_core";
    case cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    default: return "isa " + std::to_string(static_cast<unsigned>(isa));
  }
}

// A row-major matrix as stored: rows x cols with the given row pitch, or its transpose (the
// logical rows x cols matrix stored as cols x rows), as oneDNN strides.
dnnl::memory::desc matrix(int64_t rows, int64_t cols, int64_t ld, bool transposed,
                          dt type = dt::f32) {
  const dnnl::memory::dims strides =
      transposed ? dnnl::memory::dims{1, ld} : dnnl::memory::dims{ld, 1};
  return dnnl::memory::desc({rows, cols}, type, strides);
}

char trans_char(bool t) { return t ? 'T' : 'N'; }

// The matmul primitive descriptor of the API version the plugin is built against.
dnnl::matmul::primitive_desc matmul_pd(const dnnl::engine& engine, const dnnl::memory::desc& a,
                                       const dnnl::memory::desc& b, const dnnl::memory::desc& c,
                                       const dnnl::primitive_attr& attr = {}) {
#if DNNL_VERSION_MAJOR >= 3
  return dnnl::matmul::primitive_desc(engine, a, b, c, attr);
#else
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), attr, engine);
#endif
}

struct Prepared {
  dnnl::matmul primitive;
  dnnl::memory a, b, c;
  std::unordered_map<int, dnnl::memory> args;  // built once: execute() takes it by reference
  std::string impl;
  dnnl::memory::desc weights_md;  // packed-weights shapes: the layout oneDNN chose for B
};

// The primitive of pd and its memory objects, made on the first call's buffers and re-pointed
// by every run (b null: the weights come with each call, Prepared::weights_md their layout).
Prepared prepared_matmul(const dnnl::engine& engine, const dnnl::matmul::primitive_desc& pd,
                         const dnnl::memory::desc& a_md, const dnnl::memory::desc& c_md,
                         const void* a, const dnnl::memory::desc* b_md, const void* b, void* c) {
  Prepared p;
  p.primitive = dnnl::matmul(pd);
  p.impl = pd.impl_info_str();
  p.weights_md = pd.weights_desc();
  p.a = dnnl::memory(a_md, engine, const_cast<void*>(a));
  p.c = dnnl::memory(c_md, engine, c);
  p.args = {{DNNL_ARG_SRC, p.a}, {DNNL_ARG_DST, p.c}};
  if (b_md != nullptr) {
    p.b = dnnl::memory(*b_md, engine, const_cast<void*>(b));
    p.args[DNNL_ARG_WEIGHTS] = p.b;
  }
  return p;
}

class OnednnBaseline {
 public:
  explicit OnednnBaseline(int threads) : threads_(threads) {
    if (DNNL_CPU_RUNTIME == DNNL_RUNTIME_SYCL) {
      throw std::runtime_error(
          "this oneDNN build has a SYCL CPU runtime (needs a SYCL CPU "
          "device); use a CPU build such as onednn-cpu-gomp");
    }
#if DNNL_CPU_THREADING_RUNTIME != DNNL_RUNTIME_OMP
    // Only the OpenMP runtime's thread count can be set from here (omp_set_num_threads); a
    // sequential build is right for 1 thread, a TBB or threadpool build never.
    if (DNNL_CPU_THREADING_RUNTIME != DNNL_RUNTIME_SEQ || threads != 1) {
      throw std::runtime_error("this oneDNN build's threading runtime (" +
                               runtime_name(DNNL_CPU_THREADING_RUNTIME) + ") cannot be set to " +
                               std::to_string(threads) +
                               " threads by the adapter; use an OpenMP build");
    }
#endif
    apply_threads();
    engine_ = dnnl::engine(dnnl::engine::kind::cpu, 0);
    stream_ = dnnl::stream(engine_);
  }

  std::string version() const {
    const dnnl_version_t* v = dnnl_version();
    std::string s = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                    std::to_string(v->patch) + " (" + std::string(v->hash).substr(0, 10) + ")";
    s += "; threading: " + runtime_name(v->cpu_runtime);
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
    s += "; threads: " + std::to_string(omp_get_max_threads());
#endif
    s += "; ISA: " + isa_name(dnnl::get_effective_cpu_isa());
    return s;
  }

  bool supports(const GemmCall& c) const {
    // oneDNN rejects zero-sized dimensions in matmul (an empty GEMM has nothing to time).
    return adaptcore::bench::detail::valid_call(c) && c.m > 0 && c.n > 0 && c.k > 0;
  }

  void prepare(const GemmCall& c) {
    apply_threads();
    const ShapeKey key = shape_key(c);
    if (prepared_.count(key) != 0) return;
    const auto a_md = matrix(c.m, c.k, c.lda, c.trans_a);
    const auto b_md = matrix(c.k, c.n, c.ldb, c.trans_b);
    const auto c_md = matrix(c.m, c.n, c.ldc, false);
    prepared_.emplace(key, prepared_matmul(engine_, matmul_pd(engine_, a_md, b_md, c_md), a_md,
                                           c_md, c.a, &b_md, c.b, c.c));
  }

  void run(const GemmCall& c) {
    Prepared& p = find_or_prepare(c);
    apply_threads();
    p.a.set_data_handle(const_cast<float*>(c.a));
    p.b.set_data_handle(const_cast<float*>(c.b));
    p.c.set_data_handle(c.c);
    p.primitive.execute(stream_, p.args);
    stream_.wait();
  }

  std::string detail(const GemmCall& c) const {
    const auto it = prepared_.find(shape_key(c));
    return it != prepared_.end() ? "impl " + it->second.impl : "";
  }

  // Packed weights: the matmul primitive created with the weights' layout left to oneDNN
  // (format_tag::any), and each call's B reordered once into the blocked layout it chose.
  bool supports_packed(const GemmCall& c) const { return supports(c); }

  void pack(const GemmCall& c) {
    apply_threads();
    reorder_weights(packed_shape(c), matrix(c.k, c.n, c.ldb, c.trans_b), c.b);
  }

  void run_packed(const GemmCall& c) {
    apply_threads();
    run_on_reordered(packed_shape(c), c.a, c.b, c.c);
  }

  void release_packed(const GemmCall& c) { packed_weights_.erase(c.b); }

  // Low-precision weights packed ahead of time: the matmul primitive (bf16 x bf16 -> f32, or
  // u8 / s8 x s8 -> s32 without zero points) made with the weights' layout left to oneDNN, each
  // call's B reordered once into it.
  bool supports_packed_lowp(const LowpGemmCall& c) const {
    return supports_lowp(c) && c.a_zero_point == 0;
  }

  void pack_lowp(const LowpGemmCall& c) {
    apply_threads();
    reorder_weights(packed_lowp_shape(c), matrix(c.k, c.n, c.ldb, c.trans_b, weight_type(c)), c.b);
  }

  void run_packed_lowp(const LowpGemmCall& c) {
    apply_threads();
    run_on_reordered(packed_lowp_shape(c), c.a, c.b, c.c);
  }

  void release_packed_lowp(const LowpGemmCall& c) { packed_weights_.erase(c.b); }

  // A fused epilogue: the matmul primitive with the list as oneDNN post-ops (binary add of a
  // 1 x n bias or an m x n residual, binary multiply by a 1 x n scale, eltwise relu, gelu_tanh,
  // gelu_erf, swish with alpha 1 for SiLU), made on a shape and list's first call.
  void run_post_ops(const GemmCall& c, const std::vector<adaptcore::bench::Baseline::PostOp>& ops) {
    apply_threads();
    std::string key_text;
    for (const auto& op : ops)
      key_text += std::to_string(op.kind) + "/" + std::to_string(op.ld) + ",";
    const auto key = std::make_pair(shape_key(c), key_text);
    auto it = prepared_post_.find(key);
    if (it == prepared_post_.end()) {
      const auto a_md = matrix(c.m, c.k, c.lda, c.trans_a);
      const auto b_md = matrix(c.k, c.n, c.ldb, c.trans_b);
      const auto c_md = matrix(c.m, c.n, c.ldc, false);
      dnnl::post_ops po;
      std::vector<dnnl::memory::desc> extra;
      for (const auto& op : ops) {
        switch (op.kind) {
          case 1:  // bias
          case 2:  // scale
          {
            const dnnl::memory::desc v({1, c.n}, dt::f32, dnnl::memory::dims{c.n, 1});
            po.append_binary(
                op.kind == 1 ? dnnl::algorithm::binary_add : dnnl::algorithm::binary_mul, v);
            extra.push_back(v);
            break;
          }
          case 3: {  // residual
            const auto r = matrix(c.m, c.n, op.ld, false);
            po.append_binary(dnnl::algorithm::binary_add, r);
            extra.push_back(r);
            break;
          }
          case 4:
          case 5:
          case 6:
          case 7: {  // relu, gelu_tanh, gelu_erf, silu (swish with alpha 1)
            static constexpr dnnl::algorithm kEltwise[] = {
                dnnl::algorithm::eltwise_relu, dnnl::algorithm::eltwise_gelu_tanh,
                dnnl::algorithm::eltwise_gelu_erf, dnnl::algorithm::eltwise_swish};
            po.append_eltwise(kEltwise[op.kind - 4], op.kind == 7 ? 1.0f : 0.0f, 0.0f);
            extra.emplace_back();
            break;
          }
          default: throw std::runtime_error("unknown post-op " + std::to_string(op.kind));
        }
      }
      dnnl::primitive_attr attr;
      attr.set_post_ops(po);
      const dnnl::matmul::primitive_desc pd = matmul_pd(engine_, a_md, b_md, c_md, attr);
      PostPrepared p{prepared_matmul(engine_, pd, a_md, c_md, c.a, &b_md, c.b, c.c), {}};
      for (std::size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].data == nullptr) continue;
        dnnl::memory m(extra[i], engine_, const_cast<float*>(ops[i].data));
        p.extra.emplace_back(static_cast<int>(i), m);
        p.base.args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i)) | DNNL_ARG_SRC_1] = m;
      }
      it = prepared_post_.emplace(key, std::move(p)).first;
    }
    PostPrepared& pp = it->second;
    Prepared& p = pp.base;
    p.a.set_data_handle(const_cast<float*>(c.a));
    p.b.set_data_handle(const_cast<float*>(c.b));
    p.c.set_data_handle(c.c);
    for (auto& [i, m] : pp.extra)
      m.set_data_handle(const_cast<float*>(ops[static_cast<std::size_t>(i)].data));
    p.primitive.execute(stream_, p.args);
    stream_.wait();
  }

  // bf16: the matmul primitive; int8: dnnl_gemm_*, whose A offset is a u8 (u8s8) or an s8
  // (s8s8), so other zero points are unsupported.
  bool supports_lowp(const LowpGemmCall& c) const {
    if (!adaptcore::bench::detail::valid_call(c) || c.m <= 0 || c.n <= 0 || c.k <= 0) return false;
    switch (c.type) {
      case LowpType::Bf16: return bf16_matmul_available();
      case LowpType::U8S8: return int8_exact() && c.a_zero_point >= 0 && c.a_zero_point <= 255;
      case LowpType::S8S8: return int8_exact() && c.a_zero_point >= -128 && c.a_zero_point <= 127;
    }
    return false;
  }

  // Whether oneDNN's integer GEMM computes the exact int32 sums here: without a VNNI dot
  // product it multiplies pairs of bytes into saturating 16-bit sums (vpmaddubsw), and on an
  // AVX2 Zen 3 both u8s8 and s8s8 differed from the exact result on every shape of the
  // baselines' test. Not the same operation, so not compared.
  static bool int8_exact() {
    // oneDNN's ISA values are nested bit sets: the bits an ISA adds to the one below it.
    const auto have = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    constexpr unsigned avx2_vnni = dnnl_cpu_isa_avx2_vnni & ~dnnl_cpu_isa_avx2;
    constexpr unsigned avx512_vnni = dnnl_cpu_isa_avx512_core_vnni & ~dnnl_cpu_isa_avx512_core;
    return (have & (avx2_vnni | avx512_vnni)) != 0;
  }

  // Whether this CPU has a bf16 matmul implementation: oneDNN has none below AVX-512 (an AVX2
  // Zen 3 answers "could not create a primitive descriptor"). Asked once, with a 1 x 1 x 1 call.
  bool bf16_matmul_available() const {
    static const bool available = [this] {
      try {
        const dnnl::memory::desc a({1, 1}, dt::bf16, dnnl::memory::format_tag::ab);
        const dnnl::memory::desc c({1, 1}, dt::f32, dnnl::memory::format_tag::ab);
        (void)dnnl::matmul::primitive_desc(engine_, a, a, c);
        return true;
      } catch (const dnnl::error&) {
        return false;
      }
    }();
    return available;
  }

  void prepare_lowp(const LowpGemmCall& c) {
    apply_threads();
    if (c.type != LowpType::Bf16) return;  // the GEMM functions have no setup
    const ShapeKey key = shape_key(dims(c));
    if (prepared_bf16_.count(key) != 0) return;
    const auto a_md = matrix(c.m, c.k, c.lda, c.trans_a, dt::bf16);
    const auto b_md = matrix(c.k, c.n, c.ldb, c.trans_b, dt::bf16);
    const auto c_md = matrix(c.m, c.n, c.ldc, false, dt::f32);
    prepared_bf16_.emplace(key, prepared_matmul(engine_, matmul_pd(engine_, a_md, b_md, c_md), a_md,
                                                c_md, c.a, &b_md, c.b, c.c));
  }

  void run_lowp(const LowpGemmCall& c) {
    apply_threads();
    if (c.type == LowpType::Bf16) {
      const ShapeKey key = shape_key(dims(c));
      auto it = prepared_bf16_.find(key);
      if (it == prepared_bf16_.end()) {
        prepare_lowp(c);
        it = prepared_bf16_.find(key);
      }
      Prepared& p = it->second;
      p.a.set_data_handle(const_cast<void*>(c.a));
      p.b.set_data_handle(const_cast<void*>(c.b));
      p.c.set_data_handle(c.c);
      p.primitive.execute(stream_, p.args);
      stream_.wait();
      return;
    }
    const int32_t no_offset = 0;
    dnnl_status_t st;
    if (c.type == LowpType::U8S8) {
      st = dnnl_gemm_u8s8s32(trans_char(c.trans_a), trans_char(c.trans_b), 'F', c.m, c.n, c.k, 1.0f,
                             static_cast<const uint8_t*>(c.a), c.lda,
                             static_cast<uint8_t>(c.a_zero_point), static_cast<const int8_t*>(c.b),
                             c.ldb, 0, 0.0f, static_cast<int32_t*>(c.c), c.ldc, &no_offset);
    } else {
      st = dnnl_gemm_s8s8s32(trans_char(c.trans_a), trans_char(c.trans_b), 'F', c.m, c.n, c.k, 1.0f,
                             static_cast<const int8_t*>(c.a), c.lda,
                             static_cast<int8_t>(c.a_zero_point), static_cast<const int8_t*>(c.b),
                             c.ldb, 0, 0.0f, static_cast<int32_t*>(c.c), c.ldc, &no_offset);
    }
    if (st != dnnl_success)
      throw std::runtime_error("dnnl_gemm int8 failed with status " + std::to_string(st));
  }

 private:
  // The caller's B (stored as user_md says) reordered once into the primitive's weights layout,
  // remembered by the caller's B pointer.
  void reorder_weights(const Prepared& p, const dnnl::memory::desc& user_md, const void* b) {
    dnnl::memory user(user_md, engine_, const_cast<void*>(b));
    dnnl::memory blocked(p.weights_md, engine_);
    dnnl::reorder(user, blocked).execute(stream_, user, blocked);
    stream_.wait();
    packed_weights_[b] = blocked;
  }

  // The primitive on the weights reordered for the caller's B pointer.
  void run_on_reordered(Prepared& p, const void* a, const void* b, void* c) {
    const auto it = packed_weights_.find(b);
    if (it == packed_weights_.end()) throw std::runtime_error("weights not packed");
    p.a.set_data_handle(const_cast<void*>(a));
    p.c.set_data_handle(c);
    p.args[DNNL_ARG_WEIGHTS] = it->second;
    p.primitive.execute(stream_, p.args);
    stream_.wait();
    // The memory object is a shared handle: kept in args, it would outlive release_packed.
    p.args.erase(DNNL_ARG_WEIGHTS);
  }

  static dt weight_type(const LowpGemmCall& c) {
    return c.type == LowpType::Bf16 ? dt::bf16 : dt::s8;
  }

  Prepared& packed_lowp_shape(const LowpGemmCall& c) {
    const ShapeKey key = shape_key(dims(c));
    auto& shapes = c.type == LowpType::Bf16   ? prepared_packed_bf16_
                   : c.type == LowpType::U8S8 ? prepared_packed_u8_
                                              : prepared_packed_s8_;
    auto it = shapes.find(key);
    if (it != shapes.end()) return it->second;
    const dt a_type = c.type == LowpType::Bf16   ? dt::bf16
                      : c.type == LowpType::U8S8 ? dt::u8
                                                 : dt::s8;
    const dt c_type = c.type == LowpType::Bf16 ? dt::f32 : dt::s32;
    const auto a_md = matrix(c.m, c.k, c.lda, c.trans_a, a_type);
    const dnnl::memory::desc b_md({c.k, c.n}, weight_type(c), dnnl::memory::format_tag::any);
    const auto c_md = matrix(c.m, c.n, c.ldc, false, c_type);
    return shapes
        .emplace(key, prepared_matmul(engine_, matmul_pd(engine_, a_md, b_md, c_md), a_md, c_md,
                                      c.a, nullptr, nullptr, c.c))
        .first->second;
  }

  // The primitive of a packed-weights shape (weights in the layout oneDNN prefers).
  Prepared& packed_shape(const GemmCall& c) {
    const ShapeKey key = shape_key(c);
    auto it = prepared_packed_.find(key);
    if (it != prepared_packed_.end()) return it->second;
    const auto a_md = matrix(c.m, c.k, c.lda, c.trans_a);
    const dnnl::memory::desc b_md({c.k, c.n}, dt::f32, dnnl::memory::format_tag::any);
    const auto c_md = matrix(c.m, c.n, c.ldc, false);
    return prepared_packed_
        .emplace(key, prepared_matmul(engine_, matmul_pd(engine_, a_md, b_md, c_md), a_md, c_md,
                                      c.a, nullptr, nullptr, c.c))
        .first->second;
  }

  Prepared& find_or_prepare(const GemmCall& c) {
    const ShapeKey key = shape_key(c);
    if (last_ != nullptr && last_key_ == key) return *last_;  // the timed loop's case
    auto it = prepared_.find(key);
    if (it == prepared_.end()) {
      prepare(c);
      it = prepared_.find(key);
    }
    last_key_ = key;
    last_ = &it->second;
    return *last_;
  }

  // With the OpenMP runtime oneDNN uses omp_get_max_threads() of the calling thread, both when
  // it creates a primitive (which fixes its work split) and when it executes it.
  void apply_threads() {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
    if (omp_get_max_threads() != threads_) omp_set_num_threads(threads_);
#else
    (void)threads_;
#endif
  }

  static GemmCall dims(const LowpGemmCall& c) { return adaptcore::bench::detail::dims_of(c); }

  int threads_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  std::map<ShapeKey, Prepared> prepared_;  // std::map: references stay valid on insertion
  std::map<ShapeKey, Prepared> prepared_bf16_;
  std::map<ShapeKey, Prepared> prepared_packed_;
  struct PostPrepared {
    Prepared base;
    std::vector<std::pair<int, dnnl::memory>> extra;  // (post-op index, its vector or matrix)
  };
  std::map<std::pair<ShapeKey, std::string>, PostPrepared> prepared_post_;
  // Reordered B (fp32 and low precision) by the caller's B pointer.
  std::map<const void*, dnnl::memory> packed_weights_;
  std::map<ShapeKey, Prepared> prepared_packed_bf16_, prepared_packed_u8_, prepared_packed_s8_;
  ShapeKey last_key_{};
  Prepared* last_ = nullptr;
};

}  // namespace

ADAPTCORE_BASELINE_PLUGIN(OnednnBaseline)
ADAPTCORE_BASELINE_PLUGIN_LOWP(OnednnBaseline)
ADAPTCORE_BASELINE_PLUGIN_PACKED(OnednnBaseline)
ADAPTCORE_BASELINE_PLUGIN_POST(OnednnBaseline)
