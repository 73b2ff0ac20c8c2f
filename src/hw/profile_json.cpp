// JSON round trip of the hardware profile (nlohmann/json, header-only: no runtime dependency).
#include <cstdint>
#include <limits>
#include <new>
#include <nlohmann/json.hpp>

#include "adaptcore/hardware.hpp"
#include "core/file_read.hpp"
#include "hw/feature_claims.hpp"

namespace adaptcore {
namespace {
constexpr int kFormatVersion = 1;
// A profile is a few dozen fields (about 1 KiB); anything past this is not one, and a path to a
// device or a huge file must not be read into memory.
constexpr std::uint64_t kMaxProfileBytes = std::uint64_t{1} << 20;

// Field table shared by both directions so the two can never drift apart.
template <class F>
void for_each_field(HardwareProfile& hw, F&& f) {
  f("name", hw.name);
  f("cores", hw.cores);
  f("fma3", hw.fma3);
  f("avx2", hw.avx2);
  f("avx512f", hw.avx512f);
  f("avx512bw", hw.avx512bw);
  f("avx512dq", hw.avx512dq);
  f("avx512vl", hw.avx512vl);
  f("avx512_bf16", hw.avx512_bf16);
  f("avx512_vnni", hw.avx512_vnni);
  f("freq_ghz", hw.freq_ghz);
  f("l1d_bytes", hw.l1d_bytes);
  f("l2_bytes", hw.l2_bytes);
  f("l3_bytes", hw.l3_bytes);
  f("l1d_ways", hw.l1d_ways);
  f("l2_ways", hw.l2_ways);
  f("page_bytes", hw.page_bytes);
  f("bw_l1_gbs", hw.bw_l1_gbs);
  f("bw_l2_gbs", hw.bw_l2_gbs);
  f("bw_l3_gbs", hw.bw_l3_gbs);
  f("bw_dram_core_gbs", hw.bw_dram_core_gbs);
  f("bw_dram_total_gbs", hw.bw_dram_total_gbs);
  f("fma_per_cycle_avx512", hw.fma_per_cycle_avx512);
  f("fma_per_cycle_avx2", hw.fma_per_cycle_avx2);
  f("fork_join_us", hw.fork_join_us);
  f("pack_gbs", hw.pack_gbs);
}

template <class T>
bool positive(const T& v) {
  return v > T{0};
}

}  // namespace

std::string to_json(const HardwareProfile& hw_in) {
  HardwareProfile hw = hw_in;
  nlohmann::ordered_json j;
  j["format"] = "adaptcore-hardware-profile";
  j["version"] = kFormatVersion;
  j["source"] = hw.source;
  for_each_field(hw, [&](const char* key, auto& v) { j[key] = v; });
  return j.dump(2);
}

namespace {

// The members of a flat JSON object, from the SAX parser: scalars by key (the last of a
// repeated key wins, as with a JSON tree); nested objects and arrays are recorded as such.
class FlatObject final : public nlohmann::json_sax<nlohmann::json> {
 public:
  enum class Kind { Null, Bool, Int, Uint, Float, String, Nested };
  struct Value {
    Kind kind = Kind::Null;
    bool b = false;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    double d = 0.0;
    std::string s;
  };
  bool is_object = false;

  const Value* find(const char* key) const noexcept {
    for (auto it = fields_.rbegin(); it != fields_.rend(); ++it)
      if (it->first == key) return &it->second;
    return nullptr;
  }

  bool null() override { return scalar(Value{}); }
  bool boolean(bool v) override {
    Value x = of(Kind::Bool);
    x.b = v;
    return scalar(std::move(x));
  }
  bool number_integer(number_integer_t v) override {
    Value x = of(Kind::Int);
    x.i = v;
    return scalar(std::move(x));
  }
  bool number_unsigned(number_unsigned_t v) override {
    Value x = of(Kind::Uint);
    x.u = v;
    return scalar(std::move(x));
  }
  bool number_float(number_float_t v, const string_t&) override {
    Value x = of(Kind::Float);
    x.d = v;
    return scalar(std::move(x));
  }
  bool string(string_t& v) override {
    Value x = of(Kind::String);
    x.s = v;
    return scalar(std::move(x));
  }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (depth_ == 1) key_ = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  static Value of(Kind k) {
    Value v;
    v.kind = k;
    return v;
  }
  bool scalar(Value v) {
    if (depth_ == 0) return false;  // the document is not an object
    if (depth_ == 1) fields_.emplace_back(key_, std::move(v));
    return true;
  }
  bool open(bool object) {
    if (depth_ == 0) {
      if (!object) return false;
      is_object = true;
    } else if (depth_ == 1) {
      fields_.emplace_back(key_, of(Kind::Nested));
    }
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }

  int depth_ = 0;
  std::string key_;
  std::vector<std::pair<std::string, Value>> fields_;
};

// profile_from_json's work; may throw std::bad_alloc (strings).
Status parse_profile(const std::string& text, const HardwareProfile& base, HardwareProfile& out,
                     std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error != nullptr) *error = why;
    return Status::InvalidProfile;
  };
  // The parser takes a NUL byte for the end of input (C strings), so "{...}\0garbage" would
  // parse as the object alone; JSON text never holds a raw NUL (strings escape it as \u0000).
  if (text.find('\0') != std::string::npos) return fail("not a JSON object (NUL byte in the text)");
  // The profile is one flat object: read it with the SAX parser into (key, scalar) pairs. No
  // JSON tree is built, because the tree's destructor allocates (noexcept: out of memory there
  // aborts the process). Strict parsing rejects anything after the object.
  FlatObject obj;
  const bool parsed = nlohmann::json::sax_parse(text, &obj, nlohmann::json::input_format_t::json,
                                                /*strict=*/true);
  if (!parsed || !obj.is_object) return fail("not a JSON object");
  if (const FlatObject::Value* v = obj.find("version");
      v != nullptr && !(v->kind == FlatObject::Kind::Int && v->i == kFormatVersion) &&
      !(v->kind == FlatObject::Kind::Uint && v->u == static_cast<std::uint64_t>(kFormatVersion)))
    return fail("unsupported profile version");
  HardwareProfile hw = base;
  std::string bad;
  using Kind = FlatObject::Kind;
  for_each_field(hw, [&](const char* key, auto& v) {
    const FlatObject::Value* x = bad.empty() ? obj.find(key) : nullptr;
    if (x == nullptr) return;
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, bool>) {
      if (x->kind != Kind::Bool) bad = key;
      else v = x->b;
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (x->kind != Kind::String) bad = key;
      else v = x->s;
    } else if constexpr (std::is_integral_v<T>) {
      // 2.5 cores is an error, not 2; and so is a value the field cannot hold (a cast would
      // wrap 2^32 + 3 to 3).
      if (x->kind == Kind::Uint) {
        if (x->u > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) bad = key;
        else v = static_cast<T>(x->u);
      } else if (x->kind == Kind::Int) {
        if (x->i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
            x->i > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
          bad = key;
        else
          v = static_cast<T>(x->i);
      } else {
        bad = key;
      }
    } else {
      if (x->kind == Kind::Float) v = static_cast<T>(x->d);
      else if (x->kind == Kind::Int) v = static_cast<T>(x->i);
      else if (x->kind == Kind::Uint) v = static_cast<T>(x->u);
      else bad = key;
    }
  });
  if (!bad.empty()) return fail("field '" + bad + "' has the wrong type");
  // Every rate and capacity must be positive, or the model would divide by zero.
  if (!positive(hw.cores) || !positive(hw.freq_ghz) || !positive(hw.l1d_bytes) ||
      !positive(hw.l2_bytes) || !positive(hw.l3_bytes) || !positive(hw.l1d_ways) ||
      !positive(hw.l2_ways) || hw.page_bytes < 4096 ||
      (hw.page_bytes & (hw.page_bytes - 1)) != 0 || !positive(hw.bw_l1_gbs) ||
      !positive(hw.bw_l2_gbs) || !positive(hw.bw_l3_gbs) || !positive(hw.bw_dram_core_gbs) ||
      !positive(hw.bw_dram_total_gbs) || !positive(hw.fma_per_cycle_avx512) ||
      !positive(hw.fma_per_cycle_avx2) ||
      !positive(hw.pack_gbs) || hw.fork_join_us < 0 || hw.cores > 4096)
    return fail("a capacity, rate or count is not positive (or out of range)");
  // A profile may not claim ISA features the running CPU lacks: kernels would fault.
  const std::string claims = unsupported_feature_claims(hw, detected_hardware());
  if (!claims.empty()) return fail("profile claims ISA features this CPU does not have: " + claims);
  out = std::move(hw);
  return Status::Ok;
}

}  // namespace

Status profile_from_json(const std::string& text, const HardwareProfile& base,
                         HardwareProfile& out, std::string* error) noexcept {
  try {
    return parse_profile(text, base, out, error);
  } catch (const std::bad_alloc&) {
    if (error != nullptr) *error = "out of memory";  // fits the small-string buffer
    return Status::OutOfMemory;
  } catch (...) {
    if (error != nullptr) *error = "invalid profile";  // fits the small-string buffer
    return Status::InvalidProfile;
  }
}

Status load_profile_file(const std::string& path, const HardwareProfile& base,
                         HardwareProfile& out, std::string* error) noexcept {
  try {
    std::string text, why;
    const Status r = read_regular_file(path, kMaxProfileBytes, text, &why);
    if (r != Status::Ok) {
      if (error != nullptr) *error = path + ": " + why;
      return r == Status::OutOfMemory ? r : Status::InvalidProfile;
    }
    HardwareProfile hw;
    const Status s = profile_from_json(text, base, hw, error);
    if (s != Status::Ok) return s;
    hw.source = path;
    out = std::move(hw);
    return Status::Ok;
  } catch (const std::bad_alloc&) {
    if (error != nullptr) *error = "out of memory";
    return Status::OutOfMemory;
  }
}

}  // namespace adaptcore
