// The one friend of the public handles (Context, QuantizedWeights): how the library's own
// layers reach the state behind them. The public headers name only `detail::InternalAccess`,
// so user code has no path to it. Contexts are reached through dispatch/internal_access.hpp,
// the documented internal header of the project's tools, benchmarks and tests.
#pragma once

#include <memory>
#include <utility>

#include "adaptcore/adaptcore.hpp"

namespace adaptcore::detail {

struct InternalAccess {
  static ContextImpl* context(Context& c) noexcept { return c.impl_.get(); }
  static const ContextImpl* context(const Context& c) noexcept { return c.impl_.get(); }
  static const QuantizedWeightsImpl* weights(const QuantizedWeights& w) noexcept {
    return w.impl_.get();
  }
  // Defined beside each handle's state (wq_weights.cpp, packed_weights.cpp), where its type is
  // complete.
  static QuantizedWeights make_weights(std::unique_ptr<QuantizedWeightsImpl> impl) noexcept;
  static const PackedWeightsImpl* weights(const PackedWeights& w) noexcept { return w.impl_.get(); }
  static PackedWeights make_packed(std::unique_ptr<PackedWeightsImpl> impl) noexcept;
};

// The packed weights behind a handle (null for an empty one).
inline const QuantizedWeightsImpl* impl_of(const QuantizedWeights& w) noexcept {
  return InternalAccess::weights(w);
}
inline const PackedWeightsImpl* impl_of(const PackedWeights& w) noexcept {
  return InternalAccess::weights(w);
}

}  // namespace adaptcore::detail
