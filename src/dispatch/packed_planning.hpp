// The panel width of prepacked weights (pack_weights): the width of one of the context's
// register tiles whose plans the model predicts fastest over the rows the caller expects
// (PackOptions), each row count's predicted time weighted by how often it comes. Also what
// `adaptcore explain --packed` shows. 0 when no tile's plans can read panels (never for a
// kernel table with tiles).
#pragma once

#include <cstdint>

#include "adaptcore/adaptcore.hpp"
#include "dispatch/context_impl.hpp"

namespace adaptcore {

// Whether a kernel table has a full-width register tile nr columns wide (a panel width its
// plans can read).
bool has_tile_of_width(const kernels::IsaKernels& ks, int nr) noexcept;

int packed_panel_width(detail::ContextImpl& ctx, int64_t k, int64_t n, const PackOptions& options);

}  // namespace adaptcore
