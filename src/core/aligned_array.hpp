// Zero-filled arrays on 64-byte boundaries (a cache line, a 512-bit vector) owned by a
// unique_ptr: the storage of the handles that hold packed weights.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace adaptcore {

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

// `count` elements of T, zero-filled, the size rounded up to whole lines; throws bad_alloc.
template <class T>
std::unique_ptr<T, FreeDeleter> aligned_array(std::size_t count) {
  const std::size_t bytes = (count * sizeof(T) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, bytes == 0 ? 64 : bytes);
  return std::unique_ptr<T, FreeDeleter>(static_cast<T*>(p));
}

}  // namespace adaptcore
