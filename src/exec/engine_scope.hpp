// A matrix engine's state on the thread that runs a task (kernels::EngineTile,
// kernels::WqKernels): set up when the task starts, given back when it ends, however it ends.
#pragma once

namespace adaptcore {

class EngineScope {
 public:
  using Hook = void (*)() noexcept;
  EngineScope(Hook begin, Hook end) noexcept : end_(end) {
    if (begin != nullptr) begin();
  }
  ~EngineScope() {
    if (end_ != nullptr) end_();
  }
  EngineScope(const EngineScope&) = delete;
  EngineScope& operator=(const EngineScope&) = delete;

 private:
  Hook end_;
};

}  // namespace adaptcore
