// Storage for the weights a handle keeps (prepacked fp32 / bf16 / int8 panels, quantized
// weight panels): memory that decode-sized calls stream from DRAM again and again.
#pragma once

#include <cstddef>
#include <memory>

#include "core/aligned_array.hpp"

namespace adaptcore {

// `bytes` (rounded up to whole lines) on a 64-byte boundary, zero-filled when `zero`; from 2 MiB
// on aligned to 2 MiB and advised as transparent huge pages (ignored by a kernel without
// them). Throws bad_alloc. Huge pages matter for the stream: the prefetchers follow a run
// beyond 4 KiB boundaries and no page walk interrupts it (docs/EVIDENCE.md, E8).
std::unique_ptr<unsigned char, FreeDeleter> weight_bytes(std::size_t bytes, bool zero);

// `count` elements of T in weight_bytes storage.
template <class T>
std::unique_ptr<T, FreeDeleter> weight_array(std::size_t count, bool zero) {
  return std::unique_ptr<T, FreeDeleter>(
      reinterpret_cast<T*>(weight_bytes(count * sizeof(T), zero).release()));
}

}  // namespace adaptcore
