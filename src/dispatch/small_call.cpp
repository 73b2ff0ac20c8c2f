#include "dispatch/small_call.hpp"

namespace adaptcore::detail {

void remember_small_call(ContextImpl& ctx, const TinyArgs& x, std::uint8_t payload) noexcept {
  if (ctx.verbose()) return;
  if (const std::uint64_t word = tiny_detail::tiny_word(ctx, x)) ctx.small_calls().insert(word, payload);
}

}  // namespace adaptcore::detail
