// One call's view of its context's configuration (ContextImpl::config), taken once when the
// call starts, inside its reading() section (which keeps `hw` alive for the call): the call's
// checks, key, kernels, plan and pool size all come from it, so a change made by another thread
// meanwhile applies to whole calls, never to half of one (an ISA check against one path and a
// plan for another).
#pragma once

#include "adaptcore/hardware.hpp"
#include "adaptcore/types.hpp"

namespace adaptcore::detail {

struct CallConfig {
  const HardwareProfile* hw = nullptr;
  Isa isa = Isa::Generic;
  int threads = 1;
  Residency residency = Residency::Auto;
};

}  // namespace adaptcore::detail
