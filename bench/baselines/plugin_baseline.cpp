// Loader side of the adapter plugins (Eigen, oneDNN, libxsmm): these libraries need their
// headers (C++ templates, C++ API, JIT descriptors), so the project builds a small plugin per
// library when the headers are found at configure time, and loads it here like a vendor library.
#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "baselines/dynlib.hpp"
#include "baselines/loaders.hpp"
#include "baselines/plugin_abi.h"
#include "baselines/search_paths.hpp"

namespace adaptcore::bench::detail {

namespace {

constexpr std::size_t kMessage = 1024;

ac_gemm_call to_c(const GemmCall& c) {
  return {c.m, c.n, c.k, c.trans_a ? 1 : 0, c.trans_b ? 1 : 0, c.a, c.lda, c.b, c.ldb, c.c, c.ldc};
}

ac_lowp_call to_c(const LowpGemmCall& c) {
  const int32_t type = c.type == LowpType::Bf16   ? AC_LOWP_BF16
                       : c.type == LowpType::U8S8 ? AC_LOWP_U8S8
                                                  : AC_LOWP_S8S8;
  return {type, c.m,   c.n, c.k,   c.trans_a ? 1 : 0, c.trans_b ? 1 : 0, c.a, c.lda,
          c.b,  c.ldb, c.c, c.ldc, c.a_zero_point};
}

class PluginBaseline final : public Baseline {
 public:
  PluginBaseline(std::string name, DynLib lib, const ac_baseline_plugin* table,
                 const ac_baseline_plugin_lowp* lowp, const ac_baseline_plugin_packed* packed,
                 const ac_baseline_plugin_post* post, void* self)
      : name_(std::move(name)),
        lib_(std::move(lib)),
        table_(table),
        lowp_(lowp),
        packed_(packed),
        post_(post),
        self_(self) {}
  ~PluginBaseline() override { table_->destroy(self_); }
  PluginBaseline(const PluginBaseline&) = delete;
  PluginBaseline& operator=(const PluginBaseline&) = delete;

  std::string name() const override { return name_; }

  // One table call f(msg, len) -> 0 or nonzero with a message: thrown as the library's error;
  // timed returns the call's seconds (a per-shape setup or a pack).
  template <class F>
  void checked(F&& f) const {
    char msg[kMessage] = {};
    if (f(msg, sizeof msg) != 0) throw std::runtime_error(name_ + ": " + msg);
  }
  template <class F>
  double timed(F&& f) const {
    const auto t0 = std::chrono::steady_clock::now();
    checked(f);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  std::string version() const override {
    char buf[kMessage] = {};
    table_->version(self_, buf, sizeof buf);
    return std::string(buf) + "; " + lib_.path();
  }

  bool supports(const GemmCall& call) const override {
    const ac_gemm_call c = to_c(call);
    return table_->supports(self_, &c) != 0;
  }

  double prepare(const GemmCall& call) override {
    const ac_gemm_call c = to_c(call);
    return timed([&](char* msg, std::size_t len) { return table_->prepare(self_, &c, msg, len); });
  }

  void run(const GemmCall& call) override {
    const ac_gemm_call c = to_c(call);
    checked([&](char* msg, std::size_t len) { return table_->run(self_, &c, msg, len); });
  }

  std::string detail(const GemmCall& call) const override {
    const ac_gemm_call c = to_c(call);
    char buf[kMessage] = {};
    table_->detail(self_, &c, buf, sizeof buf);
    return buf;
  }

  bool supports_lowp(const LowpGemmCall& call) const override {
    const ac_lowp_call c = to_c(call);
    return lowp_ != nullptr && lowp_->supports(self_, &c) != 0;
  }

  double prepare_lowp(const LowpGemmCall& call) override {
    if (lowp_ == nullptr) return Baseline::prepare_lowp(call);
    const ac_lowp_call c = to_c(call);
    return timed([&](char* msg, std::size_t len) { return lowp_->prepare(self_, &c, msg, len); });
  }

  void run_lowp(const LowpGemmCall& call) override {
    if (lowp_ == nullptr) return Baseline::run_lowp(call);
    const ac_lowp_call c = to_c(call);
    checked([&](char* msg, std::size_t len) { return lowp_->run(self_, &c, msg, len); });
  }

  bool supports_packed(const GemmCall& call) const override {
    const ac_gemm_call c = to_c(call);
    return packed_ != nullptr && packed_->supports(self_, &c) != 0;
  }

  double pack(const GemmCall& call) override {
    if (packed_ == nullptr) return Baseline::pack(call);
    const ac_gemm_call c = to_c(call);
    return timed([&](char* msg, std::size_t len) { return packed_->pack(self_, &c, msg, len); });
  }

  void run_packed(const GemmCall& call) override {
    if (packed_ == nullptr) return Baseline::run_packed(call);
    const ac_gemm_call c = to_c(call);
    checked([&](char* msg, std::size_t len) { return packed_->run(self_, &c, msg, len); });
  }

  void release_packed(const GemmCall& call) override {
    if (packed_ == nullptr) return;
    const ac_gemm_call c = to_c(call);
    packed_->release(self_, &c);
  }

  bool supports_packed_lowp(const LowpGemmCall& call) const override {
    const ac_lowp_call c = to_c(call);
    return packed_ != nullptr && packed_->supports_lowp(self_, &c) != 0;
  }

  double pack_lowp(const LowpGemmCall& call) override {
    if (packed_ == nullptr) return Baseline::pack_lowp(call);
    const ac_lowp_call c = to_c(call);
    return timed(
        [&](char* msg, std::size_t len) { return packed_->pack_lowp(self_, &c, msg, len); });
  }

  void run_packed_lowp(const LowpGemmCall& call) override {
    if (packed_ == nullptr) return Baseline::run_packed_lowp(call);
    const ac_lowp_call c = to_c(call);
    checked([&](char* msg, std::size_t len) { return packed_->run_lowp(self_, &c, msg, len); });
  }

  void release_packed_lowp(const LowpGemmCall& call) override {
    if (packed_ == nullptr) return;
    const ac_lowp_call c = to_c(call);
    packed_->release_lowp(self_, &c);
  }

  bool supports_post_ops() const override { return post_ != nullptr; }

  void run_post_ops(const GemmCall& call, const std::vector<PostOp>& ops) override {
    if (post_ == nullptr) return Baseline::run_post_ops(call, ops);
    const ac_gemm_call c = to_c(call);
    std::vector<ac_bench_post_op> list;
    for (const PostOp& p : ops) list.push_back({p.kind, p.data, p.ld});
    checked([&](char* msg, std::size_t len) {
      return post_->run(self_, &c, list.data(), static_cast<int>(list.size()), msg, len);
    });
  }

 private:
  std::string name_;
  DynLib lib_;
  const ac_baseline_plugin* table_;
  const ac_baseline_plugin_lowp* lowp_;      // null: no low-precision operations
  const ac_baseline_plugin_packed* packed_;  // null: no packed weights
  const ac_baseline_plugin_post* post_;      // null: no fused epilogue
  void* self_;
};

// What each plugin needs at configure time, for the message when it is absent.
std::string build_hint(const std::string& name) {
  static const std::map<std::string, std::string> hints = {
      {"eigen", "needs Eigen 3 headers (apt-get install libeigen3-dev) and OpenMP"},
      {"onednn",
       "needs oneDNN with a CPU runtime (pip install onednn-devel-cpu-gomp, or "
       "apt-get install libdnnl-dev)"},
      {"libxsmm", "needs libxsmm (apt-get install libxsmm-dev) and OpenMP"},
  };
  const auto it = hints.find(name);
  return it != hints.end() ? it->second : "";
}

}  // namespace

LoadedBaseline load_plugin(const std::string& name, int threads) {
  const std::string file = "libadaptcore_baseline_" + name + ".so";
  std::vector<std::string> paths;
  for (const std::string& dir : plugin_dirs()) paths.push_back(dir + "/" + file);
  std::string tried;
  // No RTLD_DEEPBIND: the plugin is C++ and shares the process's libstdc++, and its vendor
  // library exports no name another baseline exports.
  DynLib lib = open_first(paths, /*deepbind=*/false, tried);
  if (!lib.valid()) {
    return {nullptr, name + ": plugin " + file + " not built or not found (" + build_hint(name) +
                         "; then reconfigure, or set ADAPTCORE_BASELINE_PLUGIN_DIR); tried:" +
                         (tried.empty() ? std::string(" no plugin folder") : tried)};
  }
  auto entry = lib.function<ac_baseline_plugin_entry>(AC_BASELINE_PLUGIN_ENTRY);
  const ac_baseline_plugin* table = entry != nullptr ? entry() : nullptr;
  if (table == nullptr || table->abi != AC_BASELINE_PLUGIN_ABI) {
    return {nullptr, name + ": " + lib.path() + " is not a plugin of this build (ABI mismatch)"};
  }
  auto lowp_entry = lib.function<ac_baseline_plugin_lowp_entry>(AC_BASELINE_PLUGIN_LOWP_ENTRY);
  const ac_baseline_plugin_lowp* lowp = lowp_entry != nullptr ? lowp_entry() : nullptr;
  if (lowp != nullptr && lowp->abi != AC_BASELINE_PLUGIN_LOWP_ABI) lowp = nullptr;
  auto packed_entry =
      lib.function<ac_baseline_plugin_packed_entry>(AC_BASELINE_PLUGIN_PACKED_ENTRY);
  const ac_baseline_plugin_packed* packed = packed_entry != nullptr ? packed_entry() : nullptr;
  if (packed != nullptr && packed->abi != AC_BASELINE_PLUGIN_PACKED_ABI) packed = nullptr;
  auto post_entry = lib.function<ac_baseline_plugin_post_entry>(AC_BASELINE_PLUGIN_POST_ENTRY);
  const ac_baseline_plugin_post* post = post_entry != nullptr ? post_entry() : nullptr;
  if (post != nullptr && post->abi != AC_BASELINE_PLUGIN_POST_ABI) post = nullptr;
  char msg[kMessage] = {};
  void* self = table->create(threads, msg, sizeof msg);
  if (self == nullptr) return {nullptr, name + ": " + msg};
  return {std::make_unique<PluginBaseline>(name, std::move(lib), table, lowp, packed, post, self),
          ""};
}

}  // namespace adaptcore::bench::detail
