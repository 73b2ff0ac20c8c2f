// The profile a context starts from: detection plus the shipped profile of this CPU's
// microarchitecture (hw/shipped_profiles.hpp).
#include "adaptcore/hardware.hpp"
#include "hw/cpu_identity.hpp"
#include "hw/shipped_profiles.hpp"

namespace adaptcore {

const HardwareProfile& default_hardware() {
  // Never destroyed, like detected_hardware(): calls from atexit handlers still read it.
  static const HardwareProfile* hw =
      new HardwareProfile(apply_shipped_profile(detected_hardware(), cpu_identity()));
  return *hw;
}

}  // namespace adaptcore
