// Grow-only, 64-byte aligned scratch memory owned by the calling thread. One GEMM call sizes
// it once, before any worker starts, so workers never allocate and a failure is reported
// before any work is done.
#pragma once

#include <cstddef>
#include <cstdlib>

namespace adaptcore {

class Workspace {
 public:
  Workspace() = default;
  // Leaves an empty workspace behind: a thread's GEMM after its thread_local objects were
  // destroyed (an atexit handler on the main thread) allocates anew instead of reusing freed
  // memory.
  ~Workspace() {
    std::free(data_);
    data_ = nullptr;
    capacity_ = 0;
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // Returns at least `floats` floats, or nullptr if memory is exhausted.
  float* reserve(std::size_t floats) noexcept {
    if (floats <= capacity_) return data_;
    const std::size_t bytes = (floats * sizeof(float) + 4095) / 4096 * 4096;
    void* p = std::aligned_alloc(4096, bytes);
    if (p == nullptr) return nullptr;
    std::free(data_);
    data_ = static_cast<float*>(p);
    capacity_ = bytes / sizeof(float);
    return data_;
  }

  // The calling thread's workspace.
  static Workspace& local() noexcept {
    thread_local Workspace ws;
    return ws;
  }

 private:
  float* data_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace adaptcore
