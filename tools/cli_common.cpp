#include "cli_common.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>

namespace adaptcore::cli {

void add_context_options(CLI::App& cmd, ContextArgs& args) {
  cmd.add_option("-t,--threads", args.threads,
                 "threads (default: ADAPTCORE_NUM_THREADS, else all cores)")
      ->check(CLI::Range(1, 1024));
  cmd.add_option("--isa", args.isa, "kernel path: auto, avx512, avx2, generic")
      ->check([](const std::string& v) {
        Isa isa{};
        return parse_isa(v, isa) ? std::string() : "unknown ISA '" + v + "'";
      });
  cmd.add_option("--profile", args.profile,
                 "hardware profile JSON file (see `adaptcore hw --json`)");
}

std::unique_ptr<Context> make_context(const ContextArgs& args) {
  ContextOptions opt;
  opt.threads = args.threads;
  parse_isa(args.isa, opt.isa);
  opt.profile_path = args.profile;
  auto ctx = std::make_unique<Context>(opt);
  if (ctx->init_status() != Status::Ok) {
    const bool requested =
        (opt.isa != Isa::Auto && ctx->init_status() == Status::UnsupportedIsa) ||
        (!opt.profile_path.empty() && ctx->init_status() == Status::InvalidProfile);
    std::cerr << (requested ? "error: " : "warning: ") << ctx->init_message() << '\n';
    if (requested) return nullptr;
  }
  return ctx;
}

void add_shape_options(CLI::App& cmd, ShapeArgs& args) {
  cmd.add_option("-m,--m", args.m, "rows of C and op(A)")
      ->required()
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("-n,--n", args.n, "columns of C and op(B)")
      ->required()
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("-k,--k", args.k, "depth: columns of op(A), rows of op(B)")
      ->required()
      ->check(CLI::NonNegativeNumber);
  cmd.add_flag("--transa", args.transa, "A is stored k x m (op(A) = A^T)");
  cmd.add_flag("--transb", args.transb, "B is stored n x k (op(B) = B^T)");
}

std::string ShapeArgs::str() const {
  std::ostringstream os;
  os << "M=" << m << " N=" << n << " K=" << k << ' ' << (transa ? 'T' : 'N')
     << (transb ? 'T' : 'N');
  return os.str();
}

Status shape_problem(const ShapeArgs& s, GemmProblem& out) {
  static float dummy_c = 0.0f;  // make_problem requires a non-null C; alpha == 0 never reads A/B
  return make_problem(Layout::RowMajor, s.ta(), s.tb(), s.m, s.n, s.k, 0.0f, nullptr, s.lda(),
                      nullptr, s.ldb(), 0.0f, &dummy_c, s.ldc(), out);
}

std::string format_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string format_bytes(int64_t bytes) {
  if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

}  // namespace adaptcore::cli
