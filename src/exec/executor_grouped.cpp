#include "exec/executor_grouped.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "core/int_math.hpp"
#include "exec/executor.hpp"
#include "exec/executor_lowp.hpp"
#include "exec/executor_wq.hpp"
#include "exec/grid_tasks.hpp"
#include "exec/workspace.hpp"

namespace adaptcore {
namespace {

// The gathered rows, the results and the combine's index live in a workspace of their own: the
// unit plans run on the calling thread as task 0 and may grow Workspace::local() under them.
Workspace& grouped_workspace() noexcept {
  thread_local Workspace ws;
  return ws;
}

// A parallel pass over `count` items in equal slices; work_us tells the pool whether waking the
// workers pays (a pass over a few rows runs on the caller).
template <class F>
void parallel_slices(ThreadPool& pool, int tasks, int64_t count, double work_us, F&& body) {
  auto task = [&](int tid) {
    const Range r = split_range(count, 1, tasks, tid);
    if (r.begin < r.end) body(r.begin, r.end);
  };
  if (tasks == 1)
    task(0);
  else
    pool.run(tasks, task, work_us);
}

// Microseconds to stream `bytes` through one core (about 10 GB/s for a copy read and written).
double stream_us(double bytes) noexcept { return bytes / 1e4; }

// The epilogue of a unit: the call's list with each vector and the residual moved to the unit's
// first routed row and column.
PostOpChain unit_chain(const PostOpChain& post, int64_t row0, int64_t col0) noexcept {
  PostOpChain u = post;
  for (int i = 0; i < u.count; ++i) {
    PostOpChain::Op& op = u.ops[static_cast<std::size_t>(i)];
    if (op.data != nullptr) op.data += row0 * op.rs + col0 * op.cs;
    if (op.out != nullptr) {  // unit columns start on a pair (whole panels)
      const int64_t at =
          row0 * op.out_rs + (op.kind == PostOpKind::SwiGlu ? col0 / 2 : col0) * op.out_cs;
      op.out = op.out_bf16 ? static_cast<void*>(static_cast<std::uint16_t*>(op.out) + at)
                           : static_cast<void*>(static_cast<float*>(op.out) + at);
    }
  }
  return u;
}

}  // namespace

int64_t grouped_row_stride(int64_t floats) noexcept {
  const int64_t ld = round_up(std::max<int64_t>(floats, 1), 16);
  return ld % 1024 == 0 ? ld + 16 : ld;
}

GemmProblem unit_problem(const GroupedProblem& g, int64_t e, int64_t col0, int64_t cols,
                         const float* a, int64_t lda, float* c, int64_t ldc, float beta) noexcept {
  const detail::PackedWeightsImpl* w = g.weights[static_cast<std::size_t>(e)];
  const int64_t row0 = g.first_row[static_cast<std::size_t>(e)];
  GemmProblem p = packed_problem(g.rows(e), cols, g.k, false, lda, ldc, w->nr);
  p.a = a != nullptr ? a + row0 * lda : nullptr;
  p.b = w->data.get() + col0 * g.k;  // panel col0 / nr starts col0 * k floats in
  p.c = c != nullptr ? c + row0 * ldc + col0 : nullptr;
  p.alpha = g.alpha, p.beta = beta;
  return p;
}

WqProblem unit_wq_problem(const GroupedProblem& g, int64_t e, int64_t col0, int64_t cols,
                          const float* a, int64_t lda, float* c, int64_t ldc, float beta) noexcept {
  const int64_t row0 = g.first_row[static_cast<std::size_t>(e)];
  WqProblem p;
  p.m = g.rows(e);
  p.a = a != nullptr ? a + row0 * lda : nullptr;
  p.a_rs = lda, p.a_cs = 1;
  p.c = c != nullptr ? c + row0 * ldc + col0 : nullptr;
  p.c_rs = p.m == 1 ? 1 : ldc, p.c_cs = 1;
  p.beta = beta;
  p.parts = g.parts;
  p.w = g.qweights[static_cast<std::size_t>(e)];
  p.col0 = col0, p.cols = cols;
  return p;
}

LowpProblem unit_lowp_problem(const GroupedProblem& g, int64_t e, int64_t col0, int64_t cols,
                              const bf16* a, int64_t lda, float* c, int64_t ldc,
                              float beta) noexcept {
  const detail::PackedWeightsImpl* w = g.weights[static_cast<std::size_t>(e)];
  const int64_t row0 = g.first_row[static_cast<std::size_t>(e)];
  LowpProblem p =
      packed_lowp_problem(LowpKind::Bf16F32, g.rows(e), cols, g.k, false, lda, ldc, w->nr);
  p.a.ptr = a != nullptr ? a + row0 * lda : nullptr;
  // Panel col0 / nr starts that many whole panels (nr words x the depth in words) in.
  p.b.ptr = reinterpret_cast<const std::uint32_t*>(w->data.get()) + col0 * w->rows;
  p.c = c != nullptr ? c + row0 * ldc + col0 : nullptr;
  p.alpha = g.alpha, p.beta = beta;
  return p;
}

Status execute_grouped(const GroupedProblem& g, const std::vector<GroupedWork>& units, int cores,
                       const kernels::IsaKernels& ks, const kernels::WqKernels& wks,
                       const kernels::LowpKernels* lks, ThreadPool& pool, double predicted_us,
                       double* core_us) noexcept {
  const bool gather = g.gather != nullptr, scatter = g.scatter != nullptr;
  const int64_t R = g.routed, ldx = grouped_row_stride(g.k), ldy = grouped_row_stride(g.n);
  // Workspace: gathered A (R x ldx), results (R x ldy), the combine's token index (c_rows + 1
  // offsets and R routed rows, as int64).
  const std::size_t x_floats = gather ? static_cast<std::size_t>(R * ldx) : 0;
  const std::size_t y_floats = scatter ? static_cast<std::size_t>(R * ldy) : 0;  // ldy even
  const std::size_t index_words = scatter ? static_cast<std::size_t>(g.c_rows + 1 + R) : 0;
  const std::size_t ws_floats = x_floats + y_floats + 2 * index_words;
  float* ws = ws_floats > 0 ? grouped_workspace().reserve(ws_floats) : nullptr;
  if (ws_floats > 0 && ws == nullptr) return Status::OutOfMemory;
  float* x = ws;
  float* y = ws + x_floats;
  // x_floats and y_floats are even (ldx, ldy multiples of 16): the index is 8-byte aligned.
  auto* offsets = reinterpret_cast<int64_t*>(y + y_floats);
  int64_t* routed_of = offsets + g.c_rows + 1;

  // Rows of A as bytes (fp32 or bf16 activations): the gathered copy's rows are ldx elements
  // apart either way.
  const int64_t eb = g.bf16_experts ? 2 : 4;
  const auto* a_bytes = g.bf16_experts ? reinterpret_cast<const unsigned char*>(g.a_bf16)
                                       : reinterpret_cast<const unsigned char*>(g.a);
  auto* x_bytes = reinterpret_cast<unsigned char*>(x);
  auto* x16 = reinterpret_cast<bf16*>(x);
  if (gather && R > 0)
    parallel_slices(pool, cores, R, stream_us(2.0 * static_cast<double>(eb * R * g.k)),
                    [&](int64_t r0, int64_t r1) {
                      for (int64_t r = r0; r < r1; ++r)
                        std::memcpy(x_bytes + r * ldx * eb, a_bytes + g.gather[r] * g.lda * eb,
                                    static_cast<std::size_t>(g.k * eb));
                    });
  const float* a = gather ? x : g.a;
  const bf16* a16 = gather ? x16 : g.a_bf16;
  const int64_t lda = gather ? ldx : g.lda;

  // The units, each core its own list in order (units arrive grouped by core).
  std::vector<std::atomic<int>> status(static_cast<std::size_t>(cores));
  for (auto& s : status) s.store(static_cast<int>(Status::Ok), std::memory_order_relaxed);
  auto run_core = [&](int core) {
    const auto start = std::chrono::steady_clock::now();
    for (const GroupedWork& u : units) {
      if (u.core != core) continue;
      float* out = scatter ? y : g.c;
      const int64_t ldo = scatter ? ldy : g.ldc;
      const float beta = scatter ? 0.0f : g.beta;
      PostOpChain chain;
      if (!g.post.empty())
        chain = unit_chain(g.post, g.first_row[static_cast<std::size_t>(u.expert)], u.col0);
      if (g.quantized()) {
        WqProblem q = unit_wq_problem(g, u.expert, u.col0, u.cols, a, lda, out, ldo, beta);
        if (!g.post.empty()) q.post = &chain;  // applied per finished row block
        const Status s = execute(u.plan, q, wks, pool);
        if (s != Status::Ok) status[static_cast<std::size_t>(core)].store(static_cast<int>(s));
        continue;
      }
      if (g.bf16_experts) {
        LowpProblem q = unit_lowp_problem(g, u.expert, u.col0, u.cols, a16, lda, out, ldo, beta);
        if (!g.post.empty()) q.post = &chain;  // a stage of the epilogue, per finished panel
        if (g.alpha == 0.0f) {                 // BLAS: A and the weights are not read
          lowp_trivial(q);
          if (!g.post.empty()) ks.post_ops(chain, static_cast<float*>(q.c), ldo, 0, q.m, 0, u.cols);
          continue;
        }
        const Status s = execute(u.plan, q, *lks, pool);
        if (s != Status::Ok) status[static_cast<std::size_t>(core)].store(static_cast<int>(s));
        continue;
      }
      GemmProblem p = unit_problem(g, u.expert, u.col0, u.cols, a, lda, out, ldo, beta);
      if (!g.post.empty()) p.post = &chain;
      if (g.alpha == 0.0f) {  // BLAS: A and the weights are not read
        scale_c(p, ks);
        continue;
      }
      const Status s = execute(u.plan, p, ks, pool);
      if (s != Status::Ok) status[static_cast<std::size_t>(core)].store(static_cast<int>(s));
    }
    if (core_us != nullptr)
      core_us[core] =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count();
  };
  if (cores == 1)
    run_core(0);
  else
    pool.run(cores, run_core, predicted_us * cores);
  for (const auto& s : status)
    if (s.load() != static_cast<int>(Status::Ok)) return static_cast<Status>(s.load());

  if (scatter) {
    // Token -> routed rows (ascending), by counting.
    std::fill(offsets, offsets + g.c_rows + 1, int64_t{0});
    for (int64_t r = 0; r < R; ++r) ++offsets[g.scatter[r] + 1];
    for (int64_t t = 0; t < g.c_rows; ++t) offsets[t + 1] += offsets[t];
    for (int64_t r = 0; r < R; ++r) routed_of[offsets[g.scatter[r]]++] = r;
    for (int64_t t = g.c_rows; t > 0; --t) offsets[t] = offsets[t - 1];
    offsets[0] = 0;
    const int64_t n = g.n;
    parallel_slices(
        pool, cores, g.c_rows, stream_us(4.0 * static_cast<double>((g.c_rows * 2 + R) * n)),
        [&](int64_t t0, int64_t t1) {
          for (int64_t t = t0; t < t1; ++t) {
            float* out = g.c + t * g.ldc;
            if (g.beta == 0.0f)
              std::memset(out, 0, static_cast<std::size_t>(n) * sizeof(float));
            else if (g.beta != 1.0f)
              for (int64_t j = 0; j < n; ++j) out[j] *= g.beta;
            for (int64_t i = offsets[t]; i < offsets[t + 1]; ++i) {
              const int64_t r = routed_of[i];
              const float wr = g.scatter_weights != nullptr ? g.scatter_weights[r] : 1.0f;
              const float* src = y + r * ldy;
              for (int64_t j = 0; j < n; ++j) out[j] += wr * src[j];
            }
          }
        });
  }
  return Status::Ok;
}

}  // namespace adaptcore
