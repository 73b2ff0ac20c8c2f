// Helpers of the low-precision tests: stored matrices of any element type with padded leading
// dimensions, and the ways to run a low-precision GEMM: through a Context (public API, any
// ISA path and thread count) or directly on a chosen kernel table (to reach the fallbacks the
// context would not pick on this CPU, e.g. bf16 converted to fp32 on the avx512 path).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "amx_model_table.hpp"
#include "core/lowp_problem.hpp"
#include "exec/executor_lowp.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/lowp.hpp"
#include "kernels/registry.hpp"
#include "plan/type_config.hpp"
#include "planner/planner.hpp"
#include "test_util.hpp"

namespace adaptcore::test {

// rows x cols stored row- or column-major with ld = minimum + pad; everything outside the
// elements holds `fill`.
template <class T>
struct Mat {
  int64_t rows = 0, cols = 0, ld = 1;
  bool row_major = true;
  std::vector<T> data;

  Mat() = default;
  Mat(int64_t r, int64_t c, bool rm, int64_t pad, T fill) : rows(r), cols(c), row_major(rm) {
    ld = std::max<int64_t>(1, (rm ? c : r) + pad);
    data.assign(static_cast<std::size_t>(std::max<int64_t>(1, (rm ? r : c) * ld)), fill);
  }
  std::size_t index(int64_t i, int64_t j) const {
    return static_cast<std::size_t>(row_major ? i * ld + j : j * ld + i);
  }
  T& at(int64_t i, int64_t j) { return data[index(i, j)]; }
  const T& at(int64_t i, int64_t j) const { return data[index(i, j)]; }
  // True if nothing outside the elements differs from `fill`.
  bool padding_is(T fill) const {
    std::vector<bool> elem(data.size(), false);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) elem[index(i, j)] = true;
    for (std::size_t x = 0; x < data.size(); ++x)
      if (!elem[x] && std::memcmp(&data[x], &fill, sizeof(T)) != 0) return false;
    return true;
  }
};

// One way of running low-precision calls.
struct LowpRunner {
  std::string name;
  std::unique_ptr<Context> ctx;                 // through the public API, or
  const kernels::LowpKernels* table = nullptr;  // straight on a kernel table
  int threads = 1;
  std::unique_ptr<ThreadPool> pool;
  // > 0: the table's in-place-B (direct) kernels with depth blocks of this many values,
  // whatever the model would choose, wherever B's rows are contiguous.
  int64_t direct_kc = 0;
  // The table's dot-product kernels wherever A's rows and B's columns are contiguous along k,
  // whatever the model would choose (rows and columns split over the threads).
  bool force_dot = false;
  // > 0: depth blocks of this many values for a matrix-engine tile's plan.
  int64_t engine_kc = 0;

  Status run(const LowpCall& call) const {
    if (ctx) {
      switch (call.kind) {
        case LowpKind::Bf16F32:
          return gemm_bf16(call.layout, call.transa, call.transb, call.m, call.n, call.k,
                           call.alpha, static_cast<const bf16*>(call.a), call.lda,
                           static_cast<const bf16*>(call.b), call.ldb, call.beta,
                           static_cast<float*>(call.c), call.ldc, *ctx);
        case LowpKind::Bf16Bf16:
          return gemm_bf16(call.layout, call.transa, call.transb, call.m, call.n, call.k,
                           call.alpha, static_cast<const bf16*>(call.a), call.lda,
                           static_cast<const bf16*>(call.b), call.ldb, call.beta,
                           static_cast<bf16*>(call.c), call.ldc, *ctx);
        case LowpKind::U8S8S32:
          return gemm_u8s8s32(call.layout, call.transa, call.transb, call.m, call.n, call.k,
                              static_cast<const std::uint8_t*>(call.a), call.lda, call.a_zp,
                              static_cast<const std::int8_t*>(call.b), call.ldb, call.b_zp,
                              call.ibeta, static_cast<std::int32_t*>(call.c), call.ldc, *ctx);
        case LowpKind::S8S8S32:
          return gemm_s8s8s32(call.layout, call.transa, call.transb, call.m, call.n, call.k,
                              static_cast<const std::int8_t*>(call.a), call.lda, call.a_zp,
                              static_cast<const std::int8_t*>(call.b), call.ldb, call.b_zp,
                              call.ibeta, static_cast<std::int32_t*>(call.c), call.ldc, *ctx);
      }
      return Status::InternalError;
    }
    LowpProblem prob;
    const Status s = make_lowp_problem(call, prob);
    if (s != Status::Ok) return s;
    if (lowp_trivial(prob)) return Status::Ok;
    const ShapeKey key = make_key(prob, table->isa, threads);
    Plan plan = make_plan(key, detected_hardware(), type_config(*table, detected_hardware()));
    if (direct_kc > 0 && table->direct_b != nullptr && key.b_row_unit) {
      plan.tile = 0;
      plan.kind = PlanKind::Blocked;
      plan.mr = table->direct_b->mr;
      plan.nr = table->direct_b->nr;
      plan.pack_a = true;
      plan.pack_b = false;
      plan.kc = direct_kc;
      plan.mc = std::max<int64_t>(plan.mr, plan.mc);
    }
    if (engine_kc > 0 && !plan.is_dot() &&
        table->tiles[static_cast<std::size_t>(plan.tile)].engine != nullptr)
      plan.kc = engine_kc;
    if (force_dot && table->dot != nullptr && key.a_k_unit && key.b_k_unit) {
      plan = Plan{};
      plan.isa = table->isa;
      plan.kind = PlanKind::Dot;
      plan.mr = kernels::kLowpDotMr;
      plan.nr = kernels::kLowpDotNr;
      plan.pack_a = plan.pack_b = false;
      plan.kc = std::max<int64_t>(1, prob.k);
      plan.mc = prob.m;
      plan.nc = prob.n;
      // Split the larger side (both ways are valid for any extent).
      plan.pm = prob.m >= prob.n ? threads : 1;
      plan.pn = prob.m >= prob.n ? 1 : threads;
    }
    return execute(plan, prob, *table, *pool);
  }
};

inline LowpRunner context_runner(Isa isa, int threads) {
  LowpRunner r;
  r.name = std::string(to_string(isa)) + "/" + std::to_string(threads) + "t";
  r.ctx = make_context(isa, threads);
  r.threads = threads;
  return r;
}

inline LowpRunner table_runner(const kernels::LowpKernels* t, int threads) {
  LowpRunner r;
  r.name = std::string(t->name) + "@" + to_string(t->isa) + "/" + std::to_string(threads) + "t";
  r.table = t;
  r.threads = threads;
  r.pool = std::make_unique<ThreadPool>(threads);
  return r;
}

// Every context path (1, 2 and 3 threads on the best, 2 on the others), plus the avx512
// fallback table when the CPU has the native kernels (the context would never pick it here).
inline std::vector<LowpRunner> lowp_runners(DType dtype) {
  std::vector<LowpRunner> out;
  const auto isas = available_isas();
  for (int t : {1, 2, 3}) out.push_back(context_runner(isas.back(), t));
  for (std::size_t i = 0; i + 1 < isas.size(); ++i) out.push_back(context_runner(isas[i], 2));
  // The AMX tile through its scalar model, on every host: the plans the model makes for it
  // (with the kernels of a 2-row block of depth 37: padded depth blocks, odd depth values).
  {
    const kernels::LowpKernels& engine = model_engine_kernels(dtype);
    out.push_back(table_runner(&engine, 2));
    LowpRunner r = table_runner(&engine, 1);
    r.engine_kc = 37;
    r.name += "/kc=37";
    out.push_back(std::move(r));
  }
  if (detected_hardware().supports(Isa::Avx512)) {
    const auto* fallback = kernels::lowp_kernels_for(dtype, Isa::Avx512);
    if (fallback != nullptr) out.push_back(table_runner(fallback, 2));
    // The native table with B forced in place (bf16 only), odd and even depth blocks.
    const HardwareProfile& hw = detected_hardware();
    const bool native = hw.supports(dtype == DType::Bf16 ? Isa::Avx512Bf16 : Isa::Avx512Vnni);
    const auto* best =
        kernels::lowp_kernels_for(dtype, dtype == DType::Bf16 ? Isa::Avx512Bf16 : Isa::Avx512Vnni);
    if (native && best != nullptr && best->dot != nullptr) {
      LowpRunner r = table_runner(best, 3);
      r.force_dot = true;
      r.name += "/dot";
      out.push_back(std::move(r));
    }
    if (native && best != nullptr && best->direct_b != nullptr) {
      for (const int64_t kc : {8, 37}) {
        LowpRunner r = table_runner(best, 2);
        r.direct_kc = kc;
        r.name += "/directB kc=" + std::to_string(kc);
        out.push_back(std::move(r));
      }
    }
  }
  return out;
}

}  // namespace adaptcore::test
