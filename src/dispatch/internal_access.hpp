// The documented internal header of the project's tools, benchmarks and tests (never
// installed): the state behind a Context (ContextImpl: key_for, explain, plan_for, the kernel
// tables, the plan cache and pool for inspection) and behind a QuantizedWeights. They include
// this, not context_impl.hpp.
#pragma once

#include "core/internal_access.hpp"
#include "core/wq_weights.hpp"
#include "dispatch/context_impl.hpp"

namespace adaptcore::detail {

// The state of a usable context (Context::usable(): the stand-in default_context() returns
// when memory ran out has none).
inline ContextImpl& impl_of(Context& c) noexcept { return *InternalAccess::context(c); }
inline const ContextImpl& impl_of(const Context& c) noexcept { return *InternalAccess::context(c); }

}  // namespace adaptcore::detail
