// The panel width of prepacked weights (pack_weights): the width of one of the context's
// register tiles whose plans the model predicts fastest over the rows the caller expects
// (PackOptions), each row count's predicted time weighted by how often it comes. Also what
// `adaptcore explain --packed` shows. 0 when no tile's plans can read panels (never for a
// kernel table with tiles).
#pragma once

#include <cstdint>

#include "adaptcore/adaptcore.hpp"
#include "core/problem.hpp"
#include "dispatch/context_impl.hpp"

namespace adaptcore {

int packed_panel_width(detail::ContextImpl& ctx, int64_t k, int64_t n, const PackOptions& options);

// The problem with op(B) read from panels of nr columns instead (b_panel_nr; the pointer keeps
// standing for the weights): what a gemm_packed call on such a handle plans with.
inline GemmProblem with_panels(GemmProblem p, int nr) noexcept {
  p.b_rs = nr, p.b_cs = 1, p.b_panel_nr = nr;
  return p;
}

}  // namespace adaptcore
