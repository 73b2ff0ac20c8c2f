// adaptcore.Context (threads, ISA path, residency, plan cache, plan files, hardware profile) and
// the default context's settings as module functions.
#include <nanobind/stl/unique_ptr.h>

#include "common.hpp"
#include "errors.hpp"
#include "gil.hpp"

namespace adaptcore::python {

Residency parse_residency(const std::string& text) {
  if (text == "auto") return Residency::Auto;
  if (text == "cached") return Residency::Cached;
  if (text == "memory") return Residency::Memory;
  throw nb::value_error(
      ("residency: expected 'auto', 'cached' or 'memory', got '" + text + "'").c_str());
}

const char* residency_name(Residency r) noexcept {
  return r == Residency::Cached ? "cached" : r == Residency::Memory ? "memory" : "auto";
}

Isa parse_isa_name(const std::string& text) {
  Isa isa = Isa::Auto;
  if (!parse_isa(text, isa))
    throw nb::value_error(
        ("isa: expected 'auto' or a level: 'generic', 'avx2', 'avx512', 'avx512_vnni', "
         "'avx512_bf16', 'amx', got '" +
         text + "'")
            .c_str());
  return isa;
}

namespace {

std::string error_text(Status s, const std::string& detail) {
  return detail.empty() ? std::string(to_string(s)) : detail;
}

void check_file(Status s, const char* what, const std::string& detail) {
  if (s == Status::Ok) return;
  check(s, (std::string(what) + " (" + error_text(s, detail) + ")").c_str());
}

}  // namespace

void bind_context(nb::module_& m) {
  nb::class_<Context>(m, "Context",
                      "Thread count, ISA path, hardware profile, plan cache and thread pool of "
                      "the calls given it as `context=` (thread-safe).")
      .def(
          "__init__",
          [](Context* self, int threads, const std::string& isa, const std::string& residency,
             const std::string& profile, const std::string& plan_file, bool read_environment) {
            ContextOptions o;
            o.threads = threads;
            o.isa = parse_isa_name(isa);
            o.residency = parse_residency(residency);
            o.profile_path = profile;
            o.plan_file = plan_file;
            o.read_environment = read_environment;
            if (threads < 0 || threads > kMaxThreads)
              throw nb::value_error("threads: expected 0 (all cores) to 1024");
            new (self) Context(o);
          },
          nb::arg("threads") = 0, nb::arg("isa") = "auto", nb::arg("residency") = "auto",
          nb::arg("profile") = "", nb::arg("plan_file") = "", nb::arg("read_environment") = true,
          "threads 0: ADAPTCORE_NUM_THREADS, else the host's OpenMP threads, else all cores; isa "
          "'auto' the best the CPU runs. A bad profile or plan file leaves the context usable "
          "(init_status says why).")
      .def_prop_rw(
          "threads", [](const Context& c) { return c.threads(); },
          [](Context& c, int t) { check(c.set_threads(t), "Context.threads"); })
      .def_prop_rw(
          "isa", [](const Context& c) { return std::string(to_string(c.isa())); },
          [](Context& c, const std::string& isa) {
            check(c.set_isa(parse_isa_name(isa)), "Context.isa");
          })
      .def_prop_rw(
          "residency", [](const Context& c) { return std::string(residency_name(c.residency())); },
          [](Context& c, const std::string& r) {
            check(c.set_residency(parse_residency(r)), "Context.residency");
          })
      .def_prop_ro("init_status",
                   [](const Context& c) {
                     return c.init_status() == Status::Ok ? std::string()
                                                          : std::string(c.init_message());
                   })
      .def("cached_plans", &Context::cached_plans)
      .def("clear_plan_cache", &Context::clear_plan_cache)
      .def(
          "load_plan_file",
          [](Context& c, const std::string& path) {
            std::string why;
            Status s;
            {
              GilRelease nogil;
              s = c.load_plan_file(path, &why);
            }
            check_file(s, "Context.load_plan_file", why);
          },
          nb::arg("path"))
      .def(
          "save_plan_file",
          [](Context& c, const std::string& path) {
            std::string why;
            check_file(c.save_plan_file(path, &why), "Context.save_plan_file", why);
          },
          nb::arg("path"))
      .def(
          "load_hardware_profile",
          [](Context& c, const std::string& path) {
            std::string why;
            check_file(c.load_hardware_profile(path, &why), "Context.load_hardware_profile", why);
          },
          nb::arg("path"))
      .def(
          "hardware_json", [](const Context& c) { return to_json(c.hardware()); },
          "The hardware profile the model plans with, as JSON text.");

  m.def(
      "default_context", []() -> Context& { return default_context(); }, nb::rv_policy::reference,
      "The process-wide context of calls without `context=`.");
  m.def("version", []() { return std::string(version()); });
}

}  // namespace adaptcore::python
