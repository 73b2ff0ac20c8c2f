// Which ISA features a hardware profile claims that the running CPU lacks. A profile is a
// model input, but its feature flags also select kernels (the ISA path, and the native bf16 and
// int8 dot-product kernels), so a claim the CPU cannot back would fault with an illegal
// instruction. Every flag is compared, not only the ones that pick the fp32 path.
#pragma once

#include <string>

#include "adaptcore/hardware.hpp"

namespace adaptcore {

// The names (JSON keys, comma separated) of the features `claimed` sets and `cpu` lacks; empty
// when every claim holds. Takes the CPU as a parameter so the rule is testable on any machine.
std::string unsupported_feature_claims(const HardwareProfile& claimed, const HardwareProfile& cpu);

}  // namespace adaptcore
