// cpuinfo (the CPU's features and caches) loaded so that no other library in the process can
// see it: not a link-time dependency, but opened at run time with RTLD_LOCAL (and RTLD_DEEPBIND,
// so that its own references stay inside it). Linked normally, libcpuinfo.so.0 came into the
// process's global scope with libadaptcore_blas.so loaded globally (the BLAS drop-in), and
// PyTorch, which carries its own cpuinfo, bound its calls to that copy, found no vector ISA
// and ran every elementwise operator on its scalar path (silu on 512 x 1536: 88 -> 670 us).
#pragma once

#include <cpuinfo.h>

namespace adaptcore {

struct CpuinfoView {
  bool (*initialize)();
  const cpuinfo_package* (*get_package)(uint32_t);
  uint32_t (*get_cores_count)();
  const cpuinfo_cache* (*get_l1d_cache)(uint32_t);
  const cpuinfo_cache* (*get_l2_cache)(uint32_t);
  const cpuinfo_cache* (*get_l3_cache)(uint32_t);
#if defined(__x86_64__) || defined(__i386__)
  const cpuinfo_x86_isa* isa;  // valid after initialize()
#endif
};

// The library's entries, or null where it cannot be opened (not installed): the caller then
// detects what it needs another way. Loaded once; never unloaded.
const CpuinfoView* private_cpuinfo() noexcept;

}  // namespace adaptcore
