// One ThreadPool per thread count, made on first use: for tests that execute plans directly on
// the executors, each plan on a pool of its own thread count.
#pragma once

#include <map>
#include <memory>

#include "exec/thread_pool.hpp"

namespace adaptcore::test {

class ThreadPools {
 public:
  ThreadPool& operator()(int threads) {
    auto& p = pools_[threads];
    if (!p) p = std::make_unique<ThreadPool>(threads);
    return *p;
  }

 private:
  std::map<int, std::unique_ptr<ThreadPool>> pools_;
};

}  // namespace adaptcore::test
