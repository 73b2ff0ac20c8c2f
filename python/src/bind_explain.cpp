// explain(): the planner's class, candidates and choice for a shape, as a dict.
#include <string>

#include "common.hpp"
#include "errors.hpp"

namespace adaptcore::python {

namespace {

GemmType type_of(const std::string& dtype) {
  if (dtype == "float32" || dtype == "f32") return GemmType::F32;
  if (dtype == "bfloat16" || dtype == "bf16") return GemmType::Bf16;
  if (dtype == "int8" || dtype == "u8s8" || dtype == "s8s8") return GemmType::Int8;
  throw nb::value_error("dtype: expected 'float32', 'bfloat16' or 'int8'");
}

nb::dict candidate_dict(const PlanCandidate& c) {
  nb::dict d;
  d["plan"] = c.plan;
  d["predicted_us"] = c.predicted_us;
  d["compute_us"] = c.compute_us;
  d["memory_us"] = c.memory_us;
  d["pack_us"] = c.pack_us;
  d["sync_us"] = c.sync_us;
  d["bound"] = c.bound;
  return d;
}

nb::dict py_explain(int64_t m, int64_t n, int64_t k, const std::string& dtype, bool trans_a,
                    bool trans_b, const std::string& residency, Context* ctx) {
  PlanExplanation e;
  CallOptions o;
  o.residency = parse_residency(residency);
  check(
      explain(Layout::RowMajor, trans_a ? Trans::Yes : Trans::No, trans_b ? Trans::Yes : Trans::No,
              m, n, k, 0, 0, 0, type_of(dtype), e, o, context_or_default(ctx)),
      "explain");
  nb::dict d;
  d["m"] = m;
  d["n"] = n;
  d["k"] = k;
  d["dtype"] = dtype;
  d["class"] = e.shape_class;
  d["capacity"] = e.capacity;
  d["parallelism"] = e.parallelism;
  d["kernels"] = e.kernels;
  d["isa"] = std::string(to_string(e.isa));
  d["threads"] = e.threads;
  d["cold"] = e.cold;
  nb::list cands;
  for (const PlanCandidate& c : e.candidates) cands.append(candidate_dict(c));
  d["candidates"] = cands;
  d["chosen_index"] = e.candidates.empty() ? nb::object(nb::none()) : nb::int_(e.chosen);
  d["chosen"] = e.candidates.empty() ? nb::object(nb::none())
                                     : nb::object(candidate_dict(e.candidates[e.chosen]));
  return d;
}

}  // namespace

void bind_explain(nb::module_& m) {
  using namespace nb::literals;
  m.def("explain", &py_explain, "m"_a, "n"_a, "k"_a, "dtype"_a = "float32", "trans_a"_a = false,
        "trans_b"_a = false, "residency"_a = "auto", "context"_a = nb::none(),
        "The planner's reasoning for C (m x n) = op(A) @ op(B), row-major: the taxonomy class, "
        "every candidate plan with the model's cost terms, and the chosen one.");
}

}  // namespace adaptcore::python
