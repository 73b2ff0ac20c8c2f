// Options and helpers shared by the `adaptcore` subcommands: the context options (--threads,
// --isa, --profile), the GEMM shape options, and a few output formatters.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "adaptcore/adaptcore.hpp"
#include "core/lowp_problem.hpp"
#include "core/problem.hpp"

namespace adaptcore::cli {

// --threads / --isa / --profile: how the command's Context is configured.
struct ContextArgs {
  int threads = 0;           // 0: ADAPTCORE_NUM_THREADS or all cores
  std::string isa = "auto";  // auto: ADAPTCORE_ISA or the best supported
  std::string profile;       // JSON hardware profile; empty: ADAPTCORE_HW_PROFILE or detect
};
void add_context_options(CLI::App& cmd, ContextArgs& args);

// Builds the context; prints the reason and returns nullptr if a requested setting cannot be
// honoured (an unsupported ISA or an unreadable profile is an error here, not a fallback).
std::unique_ptr<Context> make_context(const ContextArgs& args);

// --m/--n/--k/--transa/--transb: a row-major GEMM C[m x n] = op(A) op(B).
struct ShapeArgs {
  int64_t m = 0, n = 0, k = 0;
  bool transa = false, transb = false;

  Trans ta() const { return transa ? Trans::Yes : Trans::No; }
  Trans tb() const { return transb ? Trans::Yes : Trans::No; }
  // Leading dimensions of the densely stored row-major operands.
  int64_t lda() const { return std::max<int64_t>(1, transa ? m : k); }
  int64_t ldb() const { return std::max<int64_t>(1, transb ? k : n); }
  int64_t ldc() const { return std::max<int64_t>(1, n); }
  std::string str() const;  // "M=64 N=4096 K=4096 NN"
  double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  }
};
void add_shape_options(CLI::App& cmd, ShapeArgs& args);

// The largest M, N or K an option takes: products of two stay far inside 64 bits, and a buffer
// larger than memory is refused by its allocation (measure::make_buffer), not wrapped.
inline constexpr int64_t kMaxCliDim = (int64_t{1} << 31) - 1;
// A finite number (CLI11's Range and PositiveNumber let NaN through).
CLI::Validator finite_number();
// Throws CLI's RequiredError unless --n, --k (and with m_too, --m) were given.
void require_shape(const CLI::App& cmd, bool m_too = true);

// Validates and normalises the shape without operands (alpha = 0, so A and B are not needed;
// C points at a dummy and is never touched): what the planner sees for a real call.
Status shape_problem(const ShapeArgs& s, GemmProblem& out);

// The problem of the shape's call on weights prepacked in panels of nr columns (gemm_packed:
// A and C row-major, op(B) from the panels; no operands).
GemmProblem shape_problem_packed(const ShapeArgs& s, int nr);

// --dtype: f32 (default), bf16 (bf16 x bf16 -> fp32) or u8s8 (u8 x s8 -> s32).
bool parse_dtype(const std::string& text, DType& out);
void add_dtype_option(CLI::App& cmd, std::string& dtype);
// The normalised low-precision problem of a shape, without operands (for its key).
Status shape_problem_lowp(const ShapeArgs& s, DType dtype, LowpProblem& out);

// --parts / --group / --bf16-activations of the weight-quantized dtypes.
struct WqArgs {
  int parts = 2;
  int64_t group = -1;  // -1: the format's default
  bool bf16_activations = false;
};
void add_wq_options(CLI::App& cmd, WqArgs& args);
// The key's dtype (one part turns W8A16 into W8A8, W4A16 into W4A8) and group.
DType wq_effective_dtype(DType dtype, const WqArgs& args);
int64_t wq_effective_group(DType dtype, const WqArgs& args);

std::string format_fixed(double v, int decimals);
std::string format_bytes(int64_t bytes);  // "32 KiB", "1 MiB"

}  // namespace adaptcore::cli
