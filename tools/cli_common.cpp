#include "cli_common.hpp"

#include <cmath>

#include <cstdio>
#include <iostream>
#include <sstream>

#include "core/packed_weights.hpp"

namespace adaptcore::cli {

void add_context_options(CLI::App& cmd, ContextArgs& args) {
  cmd.add_option("-t,--threads", args.threads,
                 "threads (default: ADAPTCORE_NUM_THREADS, else all cores)")
      ->check(CLI::Range(1, 1024));
  cmd.add_option("--isa", args.isa,
                 "registry level: auto, generic, avx2, avx512, avx512_vnni, avx512_bf16, amx")
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

void require_shape(const CLI::App& cmd, bool m_too) {
  for (const char* name : {"--m", "--n", "--k"})
    if ((m_too || std::string(name) != "--m") && cmd.count(name) == 0)
      throw CLI::RequiredError(name);
}

CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& text) {
        try {
          std::size_t used = 0;
          const double v = std::stod(text, &used);
          if (used != text.size() || !std::isfinite(v)) return "not a finite number: " + text;
        } catch (...) {
          return "not a number: " + text;
        }
        return std::string();
      },
      "FINITE");
}

void add_shape_options(CLI::App& cmd, ShapeArgs& args) {
  // Required unless the command runs a grouped call (require_shape, checked by the callback).
  const auto dim = CLI::Range(int64_t{0}, kMaxCliDim);
  cmd.add_option("-m,--m", args.m, "rows of C and op(A)")->check(dim);
  cmd.add_option("-n,--n", args.n, "columns of C and op(B)")->check(dim);
  cmd.add_option("-k,--k", args.k, "depth: columns of op(A), rows of op(B)")->check(dim);
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
  return make_shape_problem(Layout::RowMajor, s.ta(), s.tb(), s.m, s.n, s.k, s.lda(), s.ldb(),
                            s.ldc(), out);
}

GemmProblem shape_problem_packed(const ShapeArgs& s, int nr) {
  return packed_problem(s.m, s.n, s.k, s.transa, s.lda(), s.ldc(), nr);
}

bool parse_dtype(const std::string& text, DType& out) {
  if (text == "f32" || text == "fp32")
    out = DType::F32;
  else if (text == "bf16")
    out = DType::Bf16;
  else if (text == "u8s8" || text == "int8")
    out = DType::U8S8;
  else if (text == "w8a16")
    out = DType::W8A16;
  else if (text == "w4a16")
    out = DType::W4A16;
  else
    return false;
  return true;
}

void add_dtype_option(CLI::App& cmd, std::string& dtype) {
  cmd.add_option("--dtype", dtype,
                 "element type: f32 (default), bf16 (bf16 x bf16 -> fp32), u8s8 (u8 x s8 -> s32), "
                 "w8a16 / w4a16 (int8 / int4 weights, fp32 activations split into int8 parts)")
      ->check(CLI::IsMember({"f32", "fp32", "bf16", "u8s8", "int8", "w8a16", "w4a16"}));
}

Status shape_problem_lowp(const ShapeArgs& s, DType dtype, LowpProblem& out) {
  return make_shape_lowp_problem(dtype == DType::U8S8 ? LowpKind::U8S8S32 : LowpKind::Bf16F32,
                                 Layout::RowMajor, s.ta(), s.tb(), s.m, s.n, s.k, s.lda(), s.ldb(),
                                 s.ldc(), out);
}

void add_wq_options(CLI::App& cmd, WqArgs& args) {
  cmd.add_option("--parts", args.parts,
                 "w8a16/w4a16: activation parts, 2 (about 16 bits, default) or 1 (W8A8 dynamic)")
      ->check(CLI::IsMember({1, 2}));
  cmd.add_option("--group", args.group,
                 "w8a16/w4a16: weight scale group along K (32..256, a multiple of 32; 0 per "
                 "column); default 0 for w8a16, 128 for w4a16")
      ->check(CLI::Validator(
          [](std::string& text) {
            try {
              const long g = std::stol(text);
              if (g == 0 || (g >= 32 && g <= 256 && g % 32 == 0)) return std::string();
            } catch (...) {
            }
            return "not 0 or a multiple of 32 in 32..256: " + text;
          },
          "GROUP"));
  cmd.add_flag("--bf16-activations", args.bf16_activations,
               "w8a16/w4a16: activations given as bf16 instead of fp32");
}

DType wq_effective_dtype(DType dtype, const WqArgs& args) {
  if (args.parts == 2) return dtype;
  return dtype == DType::W4A16 ? DType::W4A8 : DType::W8A8;
}

int64_t wq_effective_group(DType dtype, const WqArgs& args) {
  if (args.group >= 0) return args.group;
  return dtype == DType::W4A16 || dtype == DType::W4A8 ? 128 : 0;
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
