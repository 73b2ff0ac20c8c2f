// Hardware detection where cpuinfo cannot be opened (hw/cpuinfo_private.hpp): the ISA flags and
// cache sizes of `hw` from the compiler's CPUID reader and sysconf. Declared for the test that
// holds it to cpuinfo's answers.
#pragma once

#include "adaptcore/hardware.hpp"

namespace adaptcore {

void detect_without_cpuinfo(HardwareProfile& hw);

// Only the ISA flags of `hw`, from the compiler's CPUID reader.
void isa_flags_from_cpuid(HardwareProfile& hw);

}  // namespace adaptcore
