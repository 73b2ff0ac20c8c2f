#include "dispatch/call_log.hpp"

#include "core/env_value.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace adaptcore {

bool verbose_from_environment() noexcept {
  const char* v = std::getenv("ADAPTCORE_VERBOSE");
  return v != nullptr && parse_env_switch(v);
}

namespace {
const char* a_layout(const ShapeKey& k) noexcept {
  return k.a_k_unit ? (k.a_row_unit ? "row" : "k-contig") : "m-contig";
}
const char* b_layout(const ShapeKey& k) noexcept { return k.b_k_unit ? "k-contig" : "n-contig"; }
}  // namespace

void CallLog::write(const ShapeKey& key, const Plan& plan, bool cache_hit, const char* runner,
                    Status status) const noexcept {
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start_).count();
  char line[512];
  std::string desc;
  try {
    desc = describe(plan);
  } catch (...) {  // out of memory: the line without the plan
  }
  const int len = std::snprintf(
      line, sizeof line,
      "adaptcore: %s m=%lld n=%lld k=%lld A=%s B=%s operands=%s threads=%d on=%s plan=[%s] "
      "cache=%s %.1f us%s%s\n",
      to_string(key.dtype), static_cast<long long>(key.m), static_cast<long long>(key.n),
      static_cast<long long>(key.k), a_layout(key), b_layout(key), key.cold ? "memory" : "cached",
      plan.threads(), runner, desc.empty() ? "?" : desc.c_str(), cache_hit ? "hit" : "miss", us,
      status == Status::Ok ? "" : " status=", status == Status::Ok ? "" : to_string(status));
  if (len > 0) {
    const std::size_t n = static_cast<std::size_t>(len) < sizeof line
                              ? static_cast<std::size_t>(len)
                              : sizeof line - 1;
    [[maybe_unused]] const ssize_t w = ::write(2, line, n);
  }
}

}  // namespace adaptcore
