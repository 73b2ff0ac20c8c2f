// The AMX block kernel: a C block of TM x TN tiles (16 x 16 fp32 or s32 each) over packed A and
// B panels (amx_layout.hpp, depth padded to whole blocks), written once over an Ops type that
// either runs the instructions (amx_ops_native.hpp, on AMX hosts) or the scalar model (ModelOps
// below, on every host). Tile numbers are template arguments because the instructions take them as
// immediates.
//
// Registers: C tiles 0 .. TM*TN-1, A tiles next, then two B tiles used in turn; TM*TN + TM + 2
// <= 8 (2 x 2: the four C tiles, two A, two B; 1 x 4: four C, one A, two B in turn).
// The tiles end in a scratch block and the epilogue writes the valid m x n of it:
//   bf16 inputs: C = alpha * acc + beta * C (beta == 0: C not read)
//   int8 inputs: C = acc + ibeta * C modulo 2^32 (ibeta == 0: C not read)
// the contract of the other low-precision kernels (kernels/lowp.hpp, LowpArgs).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/x86_amx/amx_layout.hpp"
#include "kernels/x86_amx/tile_model.hpp"

namespace adaptcore::kernels::amx {

enum class Dot { Bf16, U8S8, S8U8 };  // S8U8: A signed, B unsigned (a column-major C's swap)

struct BlockArgs {
  std::int64_t groups;     // depth in groups, whole blocks of 16 (amx_layout.hpp: padded)
  const std::uint32_t* a;  // packed A panel of TM tiles
  const std::uint32_t* b;  // packed B panel of TN tiles
  void* c;                 // fp32 (bf16 inputs) or s32 (int8) C, row-major
  std::int64_t ldc;
  float alpha = 1.0f, beta = 0.0f;
  std::int32_t ibeta = 0;
  int m = 0, n = 0;  // valid rows and columns, 1..TM*16 and 1..TN*16
};

// The block kernels' configuration: every tile 16 rows of 64 bytes.
constexpr TileShapes block_shapes() noexcept {
  TileShapes s;
  for (int t = 0; t < kTiles; ++t)
    s.rows[static_cast<std::size_t>(t)] = kTileRows,
    s.colsb[static_cast<std::size_t>(t)] = kTileBytes;
  return s;
}

// The scalar model as Ops, configured with the shapes the kernel's configuration gives (the
// kernels make their Ops from them; the native Ops find them loaded by the task's begin).
struct ModelOps {
  TileModel unit;
  explicit ModelOps(const TileShapes& shapes) noexcept : unit(shapes) {}
  template <int T>
  void zero() noexcept {
    unit.zero(T);
  }
  // rows x colsb: the tile's configured shape (the model checks it).
  template <int T>
  void load(const void* p, std::int64_t stride, int rows = kTileRows,
            int colsb = kTileBytes) noexcept {
    unit.load(T, p, stride, rows, colsb);
  }
  template <int T>
  void store(void* p, std::int64_t stride) noexcept {
    unit.store(T, p, stride);
  }
  template <Dot D, int C, int A, int B>
  void dot() noexcept {
    if constexpr (D == Dot::Bf16)
      unit.dpbf16ps(C, A, B);
    else if constexpr (D == Dot::U8S8)
      unit.dpbusd(C, A, B);
    else
      unit.dpbsud(C, A, B);
  }
};

namespace detail {
template <int N, class F>
inline void static_for(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) { (f(std::integral_constant<int, I>{}), ...); }
  (std::make_integer_sequence<int, N>{});
}
}  // namespace detail

template <Dot D, int TM, int TN, class Ops>
void block(Ops& ops, const BlockArgs& x) noexcept {
  static_assert(TM >= 1 && TN >= 1 && TM * TN + TM + 2 <= kTiles, "eight tiles");
  using detail::static_for;
  constexpr int kA = TM * TN, kB = kA + TM, kNr = TN * 16;
  static_for<TM * TN>([&](auto t) { ops.template zero<decltype(t)::value>(); });
  for (std::int64_t kb = 0; kb < x.groups / kGroupsPerBlock; ++kb) {
    const std::uint32_t* a = x.a + kb * TM * kTileWords;
    const std::uint32_t* b = x.b + kb * kGroupsPerBlock * kNr;
    static_for<TM>([&](auto tm) {
      constexpr int m = decltype(tm)::value;
      ops.template load<kA + m>(a + m * kTileWords, 64);
    });
    static_for<TN>([&](auto tn) {
      constexpr int n = decltype(tn)::value, bt = kB + n % 2;
      ops.template load<bt>(b + n * 16, kNr * 4);
      static_for<TM>([&](auto tm) {
        constexpr int m = decltype(tm)::value;
        ops.template dot<D, m * TN + n, kA + m, bt>();
      });
    });
  }
  // The accumulators of the whole block, then the valid part into C.
  using Acc = std::conditional_t<D == Dot::Bf16, float, std::int32_t>;
  alignas(64) Acc acc[TM * 16][kNr];
  static_for<TM>([&](auto tm) {
    static_for<TN>([&](auto tn) {
      constexpr int m = decltype(tm)::value, n = decltype(tn)::value;
      ops.template store<m * TN + n>(&acc[m * 16][n * 16], kNr * 4);
    });
  });
  for (int i = 0; i < x.m; ++i) {
    Acc* c = static_cast<Acc*>(x.c) + i * x.ldc;
    const Acc* r = acc[i];
    if constexpr (D == Dot::Bf16) {
      if (x.beta == 0.0f)
        for (int j = 0; j < x.n; ++j) c[j] = x.alpha * r[j];
      else
        for (int j = 0; j < x.n; ++j) c[j] = x.alpha * r[j] + x.beta * c[j];
    } else {
      auto* cu = reinterpret_cast<std::uint32_t*>(c);
      const auto ib = static_cast<std::uint32_t>(x.ibeta);
      if (x.ibeta == 0)
        for (int j = 0; j < x.n; ++j) cu[j] = static_cast<std::uint32_t>(r[j]);
      else
        for (int j = 0; j < x.n; ++j) cu[j] = static_cast<std::uint32_t>(r[j]) + ib * cu[j];
    }
  }
}

}  // namespace adaptcore::kernels::amx
