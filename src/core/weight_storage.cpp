#include "core/weight_storage.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace adaptcore {

std::unique_ptr<unsigned char, FreeDeleter> weight_bytes(std::size_t bytes, bool zero) {
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  bytes = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
  void* p = nullptr;
  const std::size_t align = bytes >= kHugePage ? kHugePage : 64;
  if (posix_memalign(&p, align, bytes) != 0 || p == nullptr) throw std::bad_alloc();
  // Advice only, given before the first touch so that the pages come in huge.
  if (bytes >= kHugePage) (void)madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);
  if (zero) std::memset(p, 0, bytes);
  return std::unique_ptr<unsigned char, FreeDeleter>(static_cast<unsigned char*>(p));
}

}  // namespace adaptcore
