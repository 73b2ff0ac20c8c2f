// gemm_grouped / explain_grouped: one call for E experts (Mixture-of-Experts), with the
// optional gather of A rows and weighted scatter-add of C rows; the schedule as a dict.
#include <string>
#include <vector>

#include "arrays.hpp"
#include "common.hpp"
#include "errors.hpp"
#include "gil.hpp"
#include "post_ops.hpp"

namespace adaptcore::python {

namespace {

nb::dict schedule_dict(const GroupedSchedule& s) {
  nb::list units;
  for (const GroupedSchedule::Unit& u : s.units) {
    nb::dict d;
    d["expert"] = u.expert;
    d["rows"] = u.rows;
    d["col0"] = u.col0;
    d["cols"] = u.cols;
    d["core"] = u.core;
    d["predicted_us"] = u.predicted_us;
    d["plan"] = u.plan;
    units.append(d);
  }
  nb::dict out;
  out["threads"] = s.threads;
  out["units"] = units;
  nb::list pred, meas;
  for (double v : s.core_predicted_us) pred.append(v);
  for (double v : s.core_measured_us) meas.append(v);
  out["core_predicted_us"] = pred;
  out["core_measured_us"] = meas;
  return out;
}

// Everything a grouped call holds while it runs.
struct Grouped {
  GroupedGemm call;
  std::vector<const PackedWeights*> packed;
  std::vector<const QuantizedWeights*> quantized;
  std::vector<unsigned char> a_copy, rows_copy, gather_copy, scatter_copy, weights_copy;
  std::vector<nb::object> keep;  // the handles, alive until the call ends
  std::vector<InArray> vectors;  // gather, scatter, weights as read
  PostOpList post;
  CallOptions options;
};

const int64_t* index_vector(const nb::handle& v, const char* what, int64_t n,
                            std::vector<unsigned char>& copy, std::vector<InArray>& keep) {
  if (v.is_none()) return nullptr;
  keep.push_back(nb::cast<InArray>(v));
  return static_cast<const int64_t*>(input_vector(keep.back(), what, Elem::S64, n, copy));
}

void prepare(Grouped& g, const InArray& a, const nb::sequence& weights, const InArray& expert_rows,
             const OutArray& c, const nb::handle& gather, const nb::handle& scatter,
             const nb::handle& scatter_weights, float alpha, float beta, int parts,
             const nb::handle& post_ops, const std::string& residency) {
  GroupedGemm& x = g.call;
  x.experts = static_cast<int64_t>(nb::len(weights));
  if (expert_rows.ndim() != 1 || static_cast<int64_t>(expert_rows.shape(0)) != x.experts)
    throw nb::value_error("expert_rows: one int64 count per expert (len(weights) values)");
  x.expert_rows = static_cast<const int64_t*>(
      input_vector(expert_rows, "expert_rows", Elem::S64, x.experts, g.rows_copy));
  int64_t routed = 0;
  for (int64_t e = 0; e < x.experts; ++e) routed += x.expert_rows[e] > 0 ? x.expert_rows[e] : 0;
  // Handles: all PackedWeights or all QuantizedWeights (None for an expert without rows).
  bool any_packed = false, any_quantized = false;
  g.packed.assign(static_cast<std::size_t>(x.experts), nullptr);
  g.quantized.assign(static_cast<std::size_t>(x.experts), nullptr);
  for (int64_t e = 0; e < x.experts; ++e) {
    nb::object h = weights[static_cast<std::size_t>(e)];
    g.keep.push_back(h);
    if (h.is_none()) continue;
    if (nb::isinstance<PackedWeights>(h)) {
      g.packed[static_cast<std::size_t>(e)] = nb::inst_ptr<PackedWeights>(h);
      any_packed = true;
    } else if (nb::isinstance<QuantizedWeights>(h)) {
      g.quantized[static_cast<std::size_t>(e)] = nb::inst_ptr<QuantizedWeights>(h);
      any_quantized = true;
    } else {
      throw nb::type_error("weights: PackedWeights, QuantizedWeights or None per expert");
    }
    const auto k = any_packed && g.packed[static_cast<std::size_t>(e)]
                       ? g.packed[static_cast<std::size_t>(e)]->k()
                       : g.quantized[static_cast<std::size_t>(e)]->k();
    const auto n = any_packed && g.packed[static_cast<std::size_t>(e)]
                       ? g.packed[static_cast<std::size_t>(e)]->n()
                       : g.quantized[static_cast<std::size_t>(e)]->n();
    if (x.k == 0 && x.n == 0) x.k = k, x.n = n;
  }
  if (any_packed && any_quantized)
    throw nb::type_error("weights: packed and quantized experts cannot be mixed in one call");
  if (any_quantized)
    x.quantized_weights = g.quantized.data();
  else
    x.weights = g.packed.data();

  // The grouped call reads A's rows: A stored by columns is copied.
  const Mat ma = input_matrix(a, "A", {Elem::F32, Elem::Bf16}, g.a_copy, true);
  if (x.experts > 0 && ma.cols != x.k)
    throw nb::value_error(
        ("A: expected " + std::to_string(x.k) + " columns (the weights' k)").c_str());
  x.lda = ma.layout == Layout::RowMajor ? ma.ld : std::max<int64_t>(ma.cols, 1);
  if (ma.elem == Elem::F32)
    x.a = static_cast<const float*>(ma.data);
  else
    x.a_bf16 = static_cast<const bf16*>(ma.data);
  x.a_rows = ma.rows;
  const Mat mc = output_matrix(c, "C", {Elem::F32});
  if (mc.layout != Layout::RowMajor && mc.cols > 1)
    throw nb::value_error("C: must be row-major (C-ordered, or a slice of one)");
  if (x.experts > 0 && mc.cols != x.n)
    throw nb::value_error(
        ("C: expected " + std::to_string(x.n) + " columns (the weights' n)").c_str());
  x.c = static_cast<float*>(const_cast<void*>(mc.data));
  x.ldc = mc.layout == Layout::RowMajor ? mc.ld : std::max<int64_t>(mc.cols, 1);
  x.c_rows = mc.rows;
  g.vectors.reserve(3);
  x.gather = index_vector(gather, "gather", routed, g.gather_copy, g.vectors);
  x.scatter = index_vector(scatter, "scatter", routed, g.scatter_copy, g.vectors);
  if (!scatter_weights.is_none()) {
    g.vectors.push_back(nb::cast<InArray>(scatter_weights));
    x.scatter_weights = static_cast<const float*>(
        input_vector(g.vectors.back(), "scatter_weights", Elem::F32, routed, g.weights_copy));
  }
  x.alpha = alpha;
  x.beta = beta;
  if (parts != 1 && parts != 2) throw nb::value_error("parts: expected 1 or 2");
  x.parts = parts == 1 ? ActivationParts::One : ActivationParts::Two;
  g.options = call_options(post_ops, residency, Layout::RowMajor, routed, x.n, g.post);
}

nb::object py_gemm_grouped(const InArray& a, const nb::sequence& weights,
                           const InArray& expert_rows, const OutArray& c, const nb::handle& gather,
                           const nb::handle& scatter, const nb::handle& scatter_weights,
                           float alpha, float beta, int parts, const nb::handle& post_ops,
                           const std::string& residency, bool schedule, Context* ctx) {
  Grouped g;
  prepare(g, a, weights, expert_rows, c, gather, scatter, scatter_weights, alpha, beta, parts,
          post_ops, residency);
  Context& cx = context_or_default(ctx);
  GroupedSchedule sched;
  Status s;
  {
    GilRelease nogil;
    s = gemm_grouped(g.call, g.options, cx, schedule ? &sched : nullptr);
  }
  check(s, "gemm_grouped");
  if (!schedule) return nb::none();
  return schedule_dict(sched);
}

nb::dict py_explain_grouped(const InArray& a, const nb::sequence& weights,
                            const InArray& expert_rows, const OutArray& c, const nb::handle& gather,
                            const nb::handle& scatter, const nb::handle& scatter_weights,
                            float alpha, float beta, int parts, Context* ctx) {
  Grouped g;
  prepare(g, a, weights, expert_rows, c, gather, scatter, scatter_weights, alpha, beta, parts,
          nb::none(), "auto");
  GroupedSchedule sched;
  check(explain_grouped(g.call, sched, context_or_default(ctx)), "explain_grouped");
  return schedule_dict(sched);
}

}  // namespace

void bind_grouped(nb::module_& m) {
  using namespace nb::literals;
  m.def("gemm_grouped", &py_gemm_grouped, "a"_a, "weights"_a, "expert_rows"_a, "c"_a,
        "gather"_a = nb::none(), "scatter"_a = nb::none(), "scatter_weights"_a = nb::none(),
        "alpha"_a = 1.0f, "beta"_a = 0.0f, "parts"_a = 2, "post_ops"_a = nb::none(),
        "residency"_a = "auto", "schedule"_a = false, "context"_a = nb::none(),
        "One call for E experts; returns the schedule with measured per-core times when "
        "schedule=True.");
  m.def("explain_grouped", &py_explain_grouped, "a"_a, "weights"_a, "expert_rows"_a, "c"_a,
        "gather"_a = nb::none(), "scatter"_a = nb::none(), "scatter_weights"_a = nb::none(),
        "alpha"_a = 1.0f, "beta"_a = 0.0f, "parts"_a = 2, "context"_a = nb::none(),
        "The schedule gemm_grouped would run, with predicted per-core times.");
}

}  // namespace adaptcore::python
