#include "dispatch/small_call.hpp"

namespace adaptcore::detail {

void remember_small_call(ContextImpl& ctx, const TinyArgs& x, ContextImpl::SmallRun run) noexcept {
  if (ctx.verbose() || run.payload == 0) return;
  // The word of the configuration the call ran on (its snapshot), not the context's now: the
  // payload's tile index is into that ISA's table.
  if (const std::uint64_t word =
          tiny_detail::tiny_word(run.threads, ctx.tiny_isa(run.isa), x, run.cold))
    ctx.cache_small_call(word, run.payload, run.hw);
}

}  // namespace adaptcore::detail
