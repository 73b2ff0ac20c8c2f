#include "dispatch/small_call.hpp"

namespace adaptcore::detail {

void remember_small_call(ContextImpl& ctx, const TinyArgs& x, ContextImpl::SmallRun run) noexcept {
  if (ctx.verbose() || run.payload == 0) return;
  if (const std::uint64_t word = tiny_detail::tiny_word(ctx, x, run.cold))
    ctx.small_calls().insert(word, run.payload);
}

}  // namespace adaptcore::detail
