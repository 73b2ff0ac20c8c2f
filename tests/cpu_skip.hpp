// Skips that cannot hide. A test that needs a CPU feature asks ADAPTCORE_SKIP_WITHOUT(feature,
// available), `available` being whether the library offers the path (its detection, its kernel
// tables). Where it does not, the test is skipped only if the CPU really lacks the feature, as
// the compiler's own CPUID reader sees it (apart from the library's detection); where the CPU has
// it, the test fails: a build without the kernels, or detection that lost a flag, cannot pass as
// "not on this CPU". A build configured for fewer levels (-DADAPTCORE_LEVELS, which defines
// ADAPTCORE_LEVELS_RESTRICTED for the tests) skips the levels it was told not to build, saying
// so. At the end of the run each test program prints which levels it exercised and which it
// skipped.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "adaptcore/hardware.hpp"
#include "adaptcore/types.hpp"
#include "kernels/registry.hpp"

namespace adaptcore::test {

enum class CpuFeature { Avx2, Avx512, Avx512Bf16, Avx512Vnni };

inline const char* feature_name(CpuFeature f) {
  switch (f) {
    case CpuFeature::Avx2: return "avx2";
    case CpuFeature::Avx512: return "avx512";
    case CpuFeature::Avx512Bf16: return "avx512_bf16";
    case CpuFeature::Avx512Vnni: return "avx512_vnni";
  }
  return "?";
}

// The registry level that offers a feature's kernels.
inline Isa level_of(CpuFeature f) {
  switch (f) {
    case CpuFeature::Avx2: return Isa::Avx2;
    case CpuFeature::Avx512: return Isa::Avx512;
    case CpuFeature::Avx512Bf16: return Isa::Avx512Bf16;
    case CpuFeature::Avx512Vnni: return Isa::Avx512Vnni;
  }
  return Isa::Generic;
}

// Whether the build was configured without the level (ADAPTCORE_LEVELS), not lost it.
inline bool left_out_of_build(CpuFeature f) {
#if defined(ADAPTCORE_LEVELS_RESTRICTED)
  return !kernels::built(level_of(f));
#else
  (void)f;
  return false;
#endif
}

// The CPU's answer (GCC's / Clang's CPUID reader, which also asks whether the OS saves the
// registers): the levels as the library defines them (docs/ARCHITECTURE.md, the ISA lattice).
inline bool cpu_has(CpuFeature f) {
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512vl");
  switch (f) {
    case CpuFeature::Avx2: return avx2;
    case CpuFeature::Avx512: return avx512;
    case CpuFeature::Avx512Bf16: return avx512 && __builtin_cpu_supports("avx512bf16");
    case CpuFeature::Avx512Vnni: return avx512 && __builtin_cpu_supports("avx512vnni");
  }
  return false;
}

// The levels the program's tests exercised and skipped, printed when the run ends.
class FeatureLog : public ::testing::Environment {
 public:
  static FeatureLog& get() {
    static FeatureLog* log = [] {
      auto* l = new FeatureLog;
      ::testing::AddGlobalTestEnvironment(l);  // gtest owns it from here
      return l;
    }();
    return *log;
  }
  void note(CpuFeature f, bool exercised) {
    std::lock_guard lock(mu_);
    (exercised ? exercised_ : skipped_).insert(feature_name(f));
  }
  void TearDown() override {
    std::string text = "ISA levels exercised:";
    for (const std::string& f : exercised_) text += " " + f;
    if (exercised_.empty()) text += " (none asked)";
    if (!skipped_.empty()) {
      text += "; skipped (not on this CPU):";
      for (const std::string& f : skipped_) text += " " + f;
    }
    std::printf("%s\n", text.c_str());
  }

 private:
  std::mutex mu_;
  std::set<std::string> exercised_, skipped_;
};

// Registered before the tests run (gtest calls the environments' SetUp first).
inline const bool kFeatureLogRegistered = (FeatureLog::get(), true);

}  // namespace adaptcore::test

// In a test body (or a helper returning void): skip, or fail where the CPU has the feature.
#define ADAPTCORE_SKIP_WITHOUT(feature, available)                                            \
  do {                                                                                        \
    const bool adaptcore_available_ = (available);                                            \
    ::adaptcore::test::FeatureLog::get().note(feature, adaptcore_available_);                 \
    if (!adaptcore_available_) {                                                              \
      if (::adaptcore::test::left_out_of_build(feature))                                      \
        GTEST_SKIP() << ::adaptcore::test::feature_name(feature)                              \
                     << " is not built (ADAPTCORE_LEVELS)";                                   \
      if (::adaptcore::test::cpu_has(feature))                                                \
        FAIL() << ::adaptcore::test::feature_name(feature)                                    \
               << ": the CPU has it, but the library does not offer it (build or detection)"; \
      GTEST_SKIP() << ::adaptcore::test::feature_name(feature) << " is not on this CPU";      \
    }                                                                                         \
  } while (0)

// The same for a fp32 path's kernel table (Generic, Avx2 or Avx512): run where the library
// detects the level and has its kernels; the generic path always runs.
#define ADAPTCORE_SKIP_WITHOUT_FP32_KERNELS(isa)                                                \
  do {                                                                                          \
    const ::adaptcore::Isa adaptcore_isa_ = (isa);                                              \
    if (adaptcore_isa_ != ::adaptcore::Isa::Generic)                                            \
      ADAPTCORE_SKIP_WITHOUT(adaptcore_isa_ == ::adaptcore::Isa::Avx2                           \
                                 ? ::adaptcore::test::CpuFeature::Avx2                          \
                                 : ::adaptcore::test::CpuFeature::Avx512,                       \
                             ::adaptcore::detected_hardware().supports(adaptcore_isa_) &&       \
                                 ::adaptcore::kernels::kernels_for(adaptcore_isa_) != nullptr); \
  } while (0)
