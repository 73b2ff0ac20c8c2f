// The table of a weight-quantized path (WqKernels, wq.hpp) from its tile family:
// Tile<P, INT4>::kernel<m> for P = 2 or 1 activation parts, int8 or int4 weights and every row
// count m = 1..kWqMaxMr. Included by the weight-quantized units (the unnamed namespace keeps
// their instantiations apart).
#pragma once

#include "kernels/kernel_tables.hpp"
#include "kernels/wq.hpp"

namespace adaptcore::kernels {
namespace {

// MR: the most rows a tile of the table runs (its kernels are instantiated for 1..MR).
template <template <int, bool> class Tile, int MR = 8>
constexpr WqKernels make_wq_kernels(const char* name, Isa isa, int dot_bits, int mr_two, int mr_one,
                                    WqQuantizeFn quantize) {
  WqKernels k{};
  k.name = name;
  k.isa = isa;
  k.native = dot_bits > 0;
  k.dot_bits = dot_bits;
  k.mr_two = mr_two;
  k.mr_one = mr_one;
  static_assert(MR <= kWqMaxMr);
  k.two_int8 = row_table<WqFn, Tile<2, false>, MR, kWqMaxMr>();
  k.one_int8 = row_table<WqFn, Tile<1, false>, MR, kWqMaxMr>();
  k.two_int4 = row_table<WqFn, Tile<2, true>, MR, kWqMaxMr>();
  k.one_int4 = row_table<WqFn, Tile<1, true>, MR, kWqMaxMr>();
  k.quantize = quantize;
  return k;
}

}  // namespace
}  // namespace adaptcore::kernels
