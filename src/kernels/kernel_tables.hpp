// Builders of the kernel tables (ukernel.hpp, lowp.hpp, wq.hpp) from kernel families: a family
// is a type with `template <int M> static void kernel(const Args&)` (one function per row
// count), or `template <int M, int N>` for the dot-product tiles. Only the ISA units include
// this; the unnamed namespace keeps their instantiations apart.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include "kernels/ukernel.hpp"

namespace adaptcore::kernels {
namespace {

// t[m - 1] = Family::kernel<m> for m = 1..sizeof...(Ms); the rest stay null.
template <class Fn, std::size_t Size, class Family, int... Ms>
constexpr std::array<Fn, Size> rows_of(std::integer_sequence<int, Ms...>) {
  static_assert(sizeof...(Ms) <= Size);
  std::array<Fn, Size> t{};
  ((t[static_cast<std::size_t>(Ms)] = &Family::template kernel<Ms + 1>), ...);
  return t;
}

template <class Fn, class Family, int MR, std::size_t Size = kMaxMr>
constexpr std::array<Fn, Size> row_table() {
  return rows_of<Fn, Size, Family>(std::make_integer_sequence<int, MR>{});
}

// t[m - 1][n - 1] = Family::kernel<m, n> for every m <= MR, n <= NR.
template <class Fn, int MR, int NR, class Family, int M, int... Ns>
constexpr std::array<Fn, NR> dot_row(std::integer_sequence<int, Ns...>) {
  return {&Family::template kernel<M, Ns + 1>...};
}
template <class Fn, int MR, int NR, class Family, int... Ms>
constexpr std::array<std::array<Fn, NR>, MR> dot_rows(std::integer_sequence<int, Ms...>) {
  return {dot_row<Fn, MR, NR, Family, Ms + 1>(std::make_integer_sequence<int, NR>{})...};
}
template <class Fn, int MR, int NR, class Family>
constexpr std::array<std::array<Fn, NR>, MR> dot_table() {
  return dot_rows<Fn, MR, NR, Family>(std::make_integer_sequence<int, MR>{});
}

}  // namespace
}  // namespace adaptcore::kernels
