// Portable fp32 micro-kernels and packing: baseline compiler flags only, so they run on any
// CPU the binary runs on. The path of last resort and the reference for the others' layouts.
#include "kernels/fp32_kernels.hpp"
#include "kernels/generic/tables.hpp"
#include "kernels/generic/vec_generic.hpp"
#include "kernels/pack_template.hpp"
#include "kernels/ukernel.hpp"

namespace {

using namespace adaptcore::kernels;

// 16 xmm registers on baseline x86-64: 4x8 keeps 8 accumulators + 2 B + 1 broadcast.
using Generic = Fp32Kernels<VecGeneric, Tile<4, 2>>;

constexpr IsaKernels kGeneric = Generic::table(
    adaptcore::Isa::Generic, false, &pack_a_panels<VecGeneric>, &pack_b_panels<VecGeneric>);
}  // namespace

namespace adaptcore::kernels {
const IsaKernels& generic_kernels() noexcept { return kGeneric; }
}  // namespace adaptcore::kernels
