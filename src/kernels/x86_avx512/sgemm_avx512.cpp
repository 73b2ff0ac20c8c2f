// AVX-512F fp32 micro-kernels and packing. Compiled with -mavx512f -mavx512vl -mfma only;
// reached through avx512_kernels() after the context checked the CPU supports AVX-512F.

// GCC 12 reports its own AVX-512 intrinsic headers (the '__Y' placeholder of the casts and
// shuffles) as maybe-uninitialised; a known false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "kernels/fp32_kernels.hpp"
#include "kernels/ukernel.hpp"
#include "kernels/x86_avx512/pack_transpose_avx512.hpp"
#include "kernels/x86_avx512/tables.hpp"
#include "kernels/x86_avx512/transposed_store_avx512.hpp"
#include "kernels/x86_avx512/vec_avx512.hpp"

namespace {

using namespace adaptcore::kernels;

// Register tiles: 14x32 (28 accumulators, 2 B loads + 14 broadcasts per 28 FMAs), 8x48 (24
// accumulators, better load ratio for mid-size M), 6x64 (24 accumulators; its 1..6-row
// variants serve decode-like M with wide vectors so B streams at full bandwidth), and 8x8 of
// half-width vectors for C with at most 8 columns (8 accumulators: two FMAs a cycle of latency
// 4 need 8 independent ones; more rows would exceed the 8 row addresses that A read in place
// keeps in registers). Tiles keep their index in plan files: a new one goes last. The 16-lane
// tiles also store transposed (Plan::transpose_c: C of fewer columns than a vector holds, its
// rows along the lanes; C's column count at most the tile's rows).
using Avx512 = Fp32Kernels<VecAvx512, Tile<14, 2, void, TransposedStoreAvx512>,
                           Tile<8, 3, void, TransposedStoreAvx512>,
                           Tile<6, 4, void, TransposedStoreAvx512>, Tile<8, 1, VecAvx512Half>>;

// The B packer transposes 16 lines in registers (or deinterleaves a few steps stored as one
// run), so a transposing pack of B runs at the profile's full packing rate; the block transpose
// of the dot plans moves 16 rows a step (docs/MODEL.md, "Fitted constants": F23, F24).
constexpr PackCosts kPackCosts{1.0, 0.5};
constexpr IsaKernels kAvx512 =
    Avx512::table(adaptcore::Isa::Avx512, true, &pack_a_rows_avx512, &pack_b_cols_avx512,
                  &transpose_block_avx512, kPackCosts);
}  // namespace

namespace adaptcore::kernels {
const IsaKernels& avx512_kernels() noexcept { return kAvx512; }
}  // namespace adaptcore::kernels
