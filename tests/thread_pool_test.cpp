// The fork/join thread pool: every task id runs exactly once per call, busy or nested calls fall
// back to running serially on the caller, and many rapid calls neither lose nor repeat work.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "exec/thread_pool.hpp"

namespace adaptcore {
namespace {

TEST(ThreadPool, EveryTidRunsExactlyOnce) {
  for (int size : {1, 2, 3, 4, 7}) {
    ThreadPool pool(size);
    EXPECT_EQ(pool.max_threads(), size);
    for (int n = 0; n <= size; ++n) {
      std::vector<std::atomic<int>> count(static_cast<std::size_t>(size) + 1);
      std::atomic<int> out_of_range{0};
      pool.run(n, [&](int tid) {
        if (tid < 0 || tid >= n)
          out_of_range.fetch_add(1);
        else
          count[static_cast<std::size_t>(tid)].fetch_add(1);
      });
      EXPECT_EQ(out_of_range.load(), 0) << size << "/" << n;
      for (int t = 0; t < n; ++t)
        EXPECT_EQ(count[static_cast<std::size_t>(t)].load(), 1)
            << "pool " << size << " n " << n << " tid " << t;
    }
  }
}

TEST(ThreadPool, RunReturnsOnlyWhenAllTasksFinished) {
  ThreadPool pool(4);
  for (int rep = 0; rep < 50; ++rep) {
    std::array<int, 4> done{};  // plain ints: the join must publish them
    pool.run(4, [&](int tid) {
      if (tid == 3) std::this_thread::sleep_for(std::chrono::microseconds(300));
      done[static_cast<std::size_t>(tid)] = rep + 1;
    });
    for (int t = 0; t < 4; ++t) ASSERT_EQ(done[static_cast<std::size_t>(t)], rep + 1) << t;
  }
}

TEST(ThreadPool, TasksRunOnDistinctThreadsWhenIdle) {
  ThreadPool pool(3);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::thread::id caller_tid0;
  // Tasks wait for each other, so they must run concurrently (on three threads).
  std::atomic<int> arrived{0};
  pool.run(3, [&](int tid) {
    arrived.fetch_add(1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived.load() < 3 && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
    std::lock_guard lock(mu);
    ids.insert(std::this_thread::get_id());
    if (tid == 0) caller_tid0 = std::this_thread::get_id();
  });
  EXPECT_EQ(arrived.load(), 3);
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(caller_tid0, std::this_thread::get_id()) << "task 0 runs on the calling thread";
}

TEST(ThreadPool, MoreTasksThanThreadsRunSerially) {
  ThreadPool pool(2);
  std::vector<int> order;
  std::vector<std::thread::id> who;
  pool.run(5, [&](int tid) {  // n > max_threads: the caller runs all, in order
    order.push_back(tid);
    who.push_back(std::this_thread::get_id());
  });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  for (auto id : who) EXPECT_EQ(id, std::this_thread::get_id());
}

TEST(ThreadPool, NestedCallsRunSeriallyOnTheTaskThread) {
  ThreadPool pool(3);
  std::array<std::array<std::atomic<int>, 3>, 3> count{};
  std::atomic<int> bad_thread{0}, bad_order{0};
  pool.run(3, [&](int outer) {
    const auto me = std::this_thread::get_id();
    int expect = 0;
    pool.run(3, [&](int inner) {
      if (std::this_thread::get_id() != me) bad_thread.fetch_add(1);
      if (inner != expect++) bad_order.fetch_add(1);
      count[static_cast<std::size_t>(outer)][static_cast<std::size_t>(inner)].fetch_add(1);
    });
  });
  EXPECT_EQ(bad_thread.load(), 0);
  EXPECT_EQ(bad_order.load(), 0);
  for (auto& row : count)
    for (auto& c : row) EXPECT_EQ(c.load(), 1);
  // The pool is usable in parallel again afterwards.
  std::atomic<int> total{0};
  pool.run(3, [&](int) { total.fetch_add(1); });
  EXPECT_EQ(total.load(), 3);
}

TEST(ThreadPool, ConcurrentCallersEachGetTheirWorkDone) {
  ThreadPool pool(3);
  constexpr int kCallers = 4, kCalls = 300;
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&] {
      for (int i = 0; i < kCalls; ++i) {
        const int n = 1 + i % 3;
        std::array<std::atomic<int>, 3> count{};
        pool.run(n, [&](int tid) { count[static_cast<std::size_t>(tid)].fetch_add(1); });
        for (int t = 0; t < 3; ++t)
          if (count[static_cast<std::size_t>(t)].load() != (t < n ? 1 : 0)) wrong.fetch_add(1);
      }
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

// Sized for a small shared machine: with more pool threads than cores every call pays for
// oversubscribed spinning, so the 4-thread pool gets fewer calls than the 2-thread one.
class RapidCalls : public ::testing::TestWithParam<int> {};

TEST_P(RapidCalls, NoWorkLostOrRepeated) {
  const int size = GetParam();
  ThreadPool pool(size);
  const int kCalls = size <= 2 ? 10000 : 1500;
  std::array<std::atomic<int64_t>, 4> count{};
  int64_t serial_sum = 0;
  for (int i = 0; i < kCalls; ++i) {
    const int n = 1 + i % size;
    pool.run(n, [&](int tid) { count[static_cast<std::size_t>(tid)].fetch_add(i); });
    serial_sum += i;
  }
  // tid t ran in every call with n > t.
  for (int t = 0; t < 4; ++t) {
    int64_t expect = 0;
    for (int i = 0; i < kCalls; ++i)
      if (1 + i % size > t) expect += i;
    EXPECT_EQ(count[static_cast<std::size_t>(t)].load(), expect) << t;
  }
  EXPECT_EQ(count[0].load(), serial_sum);
}

INSTANTIATE_TEST_SUITE_P(PoolSizes, RapidCalls, ::testing::Values(2, 4));

TEST(ThreadPool, CreateAndDestroyQuickly) {
  // Workers that have not started waiting yet when the pool is destroyed, or right after a job.
  for (int i = 0; i < 50; ++i) {
    ThreadPool pool(3);
    if (i % 2) {
      std::atomic<int> n{0};
      pool.run(3, [&](int) { n.fetch_add(1); });
      ASSERT_EQ(n.load(), 3);
    }
  }
}

TEST(ThreadPool, SleepingWorkersWakeUp) {
  ThreadPool pool(3);
  for (int i = 0; i < 3; ++i) {
    // Longer than the spin phase: workers are asleep on the futex when the job arrives.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::array<std::atomic<int>, 3> count{};
    pool.run(3, [&](int tid) { count[static_cast<std::size_t>(tid)].fetch_add(1); });
    for (auto& c : count) EXPECT_EQ(c.load(), 1);
  }
}

// A job shorter than a wake finds the workers asleep: every task runs on the caller, in tid
// order, and the workers are woken for the next job, which they then share. A long job wakes
// them and waits for them. (The estimate of the wake starts at kWakeUsUnmeasured.)
TEST(ThreadPool, ShortJobsRunOnTheCallerWhileWorkersSleep) {
  ThreadPool pool(2);
  pool.run(2, [](int) {});
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the spin phase
  std::vector<std::thread::id> who(2);
  pool.run(
      2, [&](int tid) { who[static_cast<std::size_t>(tid)] = std::this_thread::get_id(); },
      /*work_us=*/1.0);
  EXPECT_EQ(who[0], std::this_thread::get_id());
  EXPECT_EQ(who[1], std::this_thread::get_id()) << "a short job does not wait for a wake";

  // The workers were woken: once they answer (a futex wake; milliseconds in a virtual
  // machine), short jobs of a loop are shared again. Until then they run here.
  std::set<std::thread::id> ids;
  std::mutex mu;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (ids.size() < 2 && std::chrono::steady_clock::now() < deadline) {
    ids.clear();
    pool.run(
        2,
        [&](int) {
          std::lock_guard lock(mu);
          ids.insert(std::this_thread::get_id());
        },
        1.0);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  EXPECT_EQ(ids.size(), 2u) << "after the wake, short jobs are shared again";

  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ids.clear();
  std::atomic<int> arrived{0};
  pool.run(2, [&](int) {
    arrived.fetch_add(1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived.load() < 2 && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
    std::lock_guard lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(ids.size(), 2u) << "a job of unknown length waits for the wake";
}

}  // namespace
}  // namespace adaptcore
