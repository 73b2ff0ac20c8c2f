// Which vector instructions take vpdpbusd's issue slots, and what the weight-quantized kernels'
// flush costs at the limit (docs/QUANT.md, "Decode roofline", session 20). Loops generated with
// Xbyak, everything in registers or L1:
//  - 16 independent vpdpbusd chains plus `extra` instructions of one kind per 16: time against
//    the chains alone (1.00: the instruction issues beside vpdpbusd; 1 + extra / 32: it takes
//    one of vpdpbusd's two slots per cycle);
//  - one activation group of the weight-quantized register tiles (8 quads of weight loads,
//    activation-word broadcasts and vpdpbusd, then the flush into fp32 sums), as
//    x86_avx512/wq_vnni.cpp issues it: the two-part 4 x 32 tile and the one-part 6 x 32 tile, with
//    the flush's multiply-add, with an add in its place (wrong results, a bound) and without a
//    flush. The fraction of the bare vpdpbusd rate is the ceiling of the kernel's efficiency.
// One core: pin it (taskset -c 0 adaptcore_bench_dot_pipes).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <xbyak/xbyak.h>

#include "adaptcore/adaptcore.hpp"

namespace {

using Loop = void (*)(std::uint64_t iterations, const void* data);
using Xbyak::Zmm;

// An instruction beside the dot products, on a register of its own (zmm16 + i).
enum class Extra { None, Fma, Mul, Add, Convert, Shift, IntAdd, BroadcastMem };

const char* name_of(Extra e) {
  switch (e) {
    case Extra::None: return "none";
    case Extra::Fma: return "vfmadd231ps";
    case Extra::Mul: return "vmulps";
    case Extra::Add: return "vaddps";
    case Extra::Convert: return "vcvtdq2ps";
    case Extra::Shift: return "vpslld";
    case Extra::IntAdd: return "vpaddd";
    case Extra::BroadcastMem: return "vpbroadcastd m32";
  }
  return "";
}

class ExtraLoop : public Xbyak::CodeGenerator {
 public:
  ExtraLoop(Extra kind, int extra) : Xbyak::CodeGenerator(8192) {
    // rdi: iterations, rsi: data (64 bytes, L1). zmm0-15 chains, zmm30/31 operands.
    Xbyak::Label top;
    L(top);
    const int every = extra > 0 ? 16 / extra : 17;
    int done = 0;
    for (int i = 0; i < 16; ++i) {
      vpdpbusd(Zmm(i), Zmm(30), Zmm(31));
      if (kind != Extra::None && done < extra && (i + 1) % every == 0) {
        const Zmm r(16 + done++);
        switch (kind) {
          case Extra::Fma: vfmadd231ps(r, Zmm(30), Zmm(31)); break;
          case Extra::Mul: vmulps(r, r, Zmm(31)); break;
          case Extra::Add: vaddps(r, r, Zmm(31)); break;
          case Extra::Convert: vcvtdq2ps(r, r); break;
          case Extra::Shift: vpslld(r, r, 1); break;
          case Extra::IntAdd: vpaddd(r, r, Zmm(31)); break;
          case Extra::BroadcastMem: vpbroadcastd(r, ptr[rsi]); break;
          case Extra::None: break;
        }
      }
    }
    dec(rdi);
    jnz(top);
    vzeroupper();
    ret();
    ready();
  }
};

// Two activation groups (so the loop's carried state is as in the kernel) of an M x 32 tile of
// P parts: raw int32 sums zmm0..(4M-1 or 2M-1), fp32 sums zmm16.., weights zmm28/29, the
// broadcast word zmm30, the row's scale zmm31. Data (rsi): weights at 0 (1 KiB: 8 quads x 128
// B), activation words at 1 KiB (rdx), scales and compensations at 2 KiB (rcx).
enum class Flush { MultiplyAdd, AddInstead, None };

class GroupLoop : public Xbyak::CodeGenerator {
 public:
  GroupLoop(int m, int parts, Flush flush) : Xbyak::CodeGenerator(65536) {
    lea(rdx, ptr[rsi + 1024]);
    lea(rcx, ptr[rsi + 2048]);
    Xbyak::Label top;
    L(top);
    for (int g = 0; g < 2; ++g) {
      for (int i = 0; i < m; ++i)  // sums start at 0 (first parts) or -comp (the last)
        for (int t = 0; t < parts; ++t)
          for (int v = 0; v < 2; ++v) {
            const Zmm raw((i * parts + t) * 2 + v);
            if (t == parts - 1)
              vpbroadcastd(raw, ptr[rcx + 64 + 4 * i]);
            else
              vpxord(raw, raw, raw);
          }
      for (int q = 0; q < 8; ++q) {
        vmovdqu64(Zmm(28), ptr[rsi + q * 128]);
        vmovdqu64(Zmm(29), ptr[rsi + q * 128 + 64]);
        for (int x = 0; x < m * parts; ++x) {
          vpbroadcastd(Zmm(30), ptr[rdx + (q * m * parts + x) * 4]);
          vpdpbusd(Zmm(2 * x), Zmm(28), Zmm(30));
          vpdpbusd(Zmm(2 * x + 1), Zmm(29), Zmm(30));
        }
      }
      if (flush == Flush::None) continue;
      for (int i = 0; i < m; ++i) {
        vbroadcastss(Zmm(31), ptr[rcx + 4 * i]);
        for (int v = 0; v < 2; ++v) {
          const Zmm raw(i * parts * 2 + v), sum(16 + i * 2 + v);
          if (parts == 2) {
            vpslld(raw, raw, 8);
            vpaddd(raw, raw, Zmm(i * parts * 2 + 2 + v));
          }
          vcvtdq2ps(raw, raw);
          if (flush == Flush::MultiplyAdd)
            vfmadd231ps(sum, raw, Zmm(31));
          else
            vaddps(sum, sum, raw);
        }
      }
    }
    dec(rdi);
    jnz(top);
    vzeroupper();
    ret();
    ready();
  }
};

double best_seconds(Loop fn, std::uint64_t iterations, const void* data, int rounds) {
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn(iterations, data);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main() {
  if (!adaptcore::detected_hardware().features.has(adaptcore::Feature::Avx512Vnni)) {
    std::printf("no AVX512-VNNI on this machine\n");
    return 0;
  }
  alignas(64) static std::uint8_t data[4096] = {};
  constexpr int kRounds = 7;
  constexpr std::uint64_t kIterations = 4'000'000;

  const ExtraLoop bare(Extra::None, 0);
  const double t_bare = best_seconds(bare.getCode<Loop>(), kIterations, data, kRounds);
  const double dots_per_ns = 16.0 * static_cast<double>(kIterations) / t_bare * 1e-9;
  std::printf("vpdpbusd alone: %.2f per ns (16 chains)\n", dots_per_ns);
  std::printf("time with N more instructions per 16 vpdpbusd, over vpdpbusd alone\n");
  std::printf("  %-18s %7s %7s %7s\n", "instruction", "N = 2", "4", "8");
  for (Extra e : {Extra::Fma, Extra::Mul, Extra::Add, Extra::Convert, Extra::Shift, Extra::IntAdd,
                  Extra::BroadcastMem}) {
    std::printf("  %-18s", name_of(e));
    for (int n : {2, 4, 8}) {
      const ExtraLoop loop(e, n);
      std::printf(" %7.3f",
                  best_seconds(loop.getCode<Loop>(), kIterations, data, kRounds) / t_bare);
    }
    std::printf("\n");
  }

  std::printf(
      "one activation group of 32 (8 quads) of the weight-quantized tiles, vpdpbusd rate "
      "as a fraction of it alone\n");
  struct Tile {
    const char* name;
    int m, parts;
  };
  for (const Tile& t : {Tile{"two parts, 4 x 32", 4, 2}, Tile{"one part, 6 x 32", 6, 1}}) {
    std::printf("  %-18s", t.name);
    const std::pair<const char*, Flush> flushes[] = {{"multiply-add flush", Flush::MultiplyAdd},
                                                     {"add instead", Flush::AddInstead},
                                                     {"no flush", Flush::None}};
    for (const auto& [label, f] : flushes) {
      const GroupLoop loop(t.m, t.parts, f);
      const double dots = 2.0 * 8 * t.m * t.parts * 2;  // per iteration (two groups)
      const double s = best_seconds(loop.getCode<Loop>(), kIterations / 8, data, kRounds);
      std::printf("  %s %.1f%%", label,
                  100.0 * dots * static_cast<double>(kIterations / 8) / s * 1e-9 / dots_per_ns);
    }
    std::printf("\n");
  }
  return 0;
}
