// Hardware detection where cpuinfo cannot be opened (hw/cpuinfo_private.hpp): the ISA flags and
// cache sizes of `hw` from the compiler's CPUID reader and sysconf. Declared for the test that
// holds it to cpuinfo's answers.
#pragma once

#include "adaptcore/hardware.hpp"

namespace adaptcore {

void detect_without_cpuinfo(HardwareProfile& hw);

// The ISA flags of `from` into `to`.
void copy_isa_flags(const HardwareProfile& from, HardwareProfile& to);

}  // namespace adaptcore
