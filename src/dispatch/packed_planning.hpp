// The panel width of prepacked weights (pack_weights): the width of one of the context's
// register tiles whose plans the model predicts fastest over the rows the caller expects
// (PackOptions), each row count's predicted time weighted by how often it comes. Also what
// `adaptcore explain --packed` shows. 0 when no tile's plans can read panels (never for a
// kernel table with tiles).
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "adaptcore/adaptcore.hpp"
#include "core/operand_bytes.hpp"
#include "core/packed_weights.hpp"
#include "dispatch/context_impl.hpp"

namespace adaptcore {

// Packs op(B) (k x n, element (p, j) at b[p * b_rs + j * b_cs]) into panels of nr columns at
// out (k * n floats): whole panels by the path's B packer, the last one by columns.
void pack_weight_panels(const kernels::IsaKernels& ks, int64_t k, int64_t n, const float* b,
                        int64_t b_rs, int64_t b_cs, int nr, float* out);

// Whether a kernel table has a full-width register tile nr columns wide (a panel width its
// plans can read).
bool has_tile_of_width(const kernels::IsaKernels& ks, int nr) noexcept;

// Whether a call on a configuration can read a handle's panels: fp32 ones with a tile of their
// width, bf16 and int8 ones with the very low-precision table they were packed for.
bool can_run_packed(const detail::CallConfig& cfg, const detail::PackedWeightsImpl& w) noexcept;

// On the context's configuration now, or on a call's snapshot (pack_weights).
int packed_panel_width(detail::ContextImpl& ctx, int64_t k, int64_t n, const PackOptions& options);
int packed_panel_width(detail::ContextImpl& ctx, const detail::CallConfig& cfg, int64_t k,
                       int64_t n, const PackOptions& options);
// The rule itself over candidate widths, predict(m, nr) the best plan's time for m rows on
// panels nr wide (the bf16 handles' widths are their table's tiles).
int packed_panel_width(detail::ContextImpl& ctx, std::span<const int> tile_widths,
                       const PackOptions& options,
                       const std::function<double(int64_t, int)>& predict);
// The same for bf16 or int8 weights (dtype Bf16 or U8S8): the widths of the context's
// low-precision table's tiles, each priced on a call of that type on panels. 0: no table.
int packed_lowp_panel_width(detail::ContextImpl& ctx, DType dtype, int64_t k, int64_t n,
                            const PackOptions& options);
int packed_lowp_panel_width(detail::ContextImpl& ctx, const detail::CallConfig& cfg, DType dtype,
                            int64_t k, int64_t n, const PackOptions& options);
// The checks of PackOptions (InvalidArgument).
Status check_pack_options(const PackOptions& o) noexcept;
// The checks of a pack_weights call on op(B) (k x n, elements of `eb` bytes) in their order:
// layout, transpose, dimensions, options, leading dimension, size overflow, null pointer; `out`
// gets B as stored.
Status check_pack_args(Layout layout, Trans transb, int64_t k, int64_t n, const void* b,
                       int64_t ldb, int64_t eb, const PackOptions& options,
                       ByteOperand& out) noexcept;

}  // namespace adaptcore
