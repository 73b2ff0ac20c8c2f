// The generic level: portable kernels, baseline compiler flags, any CPU the binary runs on. The
// root of the lattice, so it registers every table kind.
#include "kernels/generic/tables.hpp"
#include "kernels/registry_entry.hpp"

namespace adaptcore::kernels {

const Level& level_generic() noexcept {
  static const Bf16ConvertKernels bf16(generic_kernels());
  static const LowpKernels int8 = portable_int8_kernels(Isa::Generic);
  static const Level level{Isa::Generic, &generic_kernels(), &bf16.table, &int8,
                           &wq_generic_kernels()};
  return level;
}

}  // namespace adaptcore::kernels
