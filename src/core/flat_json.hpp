// A flat JSON object (the CPU and the Ascend hardware profiles) read into typed struct fields.
// Header-only on nlohmann/json, so both libraries that read a profile share it.
//
// The object is read with the SAX parser into its members (scalars by key, nested objects and
// arrays marked as such): no JSON tree is built, because the tree's destructor allocates and is
// noexcept (out of memory there would abort the process). A struct lists its fields once, as
// for_each_field(struct, f) calling f(key, member) for each; FieldReader is such an f.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace adaptcore {

class FlatJsonObject final : public nlohmann::json_sax<nlohmann::json> {
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

  // Reads text, which must be one JSON object and nothing after it, whose "format" (when
  // present and format is not null) is the string format and whose "version" (when present) is
  // the integer version. Returns why not, or "" when it is such an object. May throw
  // std::bad_alloc.
  std::string parse(const std::string& text, const char* format, std::int64_t version) {
    const bool parsed = nlohmann::json::sax_parse(text, this, nlohmann::json::input_format_t::json,
                                                  /*strict=*/true);
    if (!syntax_error_.empty()) return syntax_error_;
    if (!parsed || !is_object_) return "not a JSON object";
    if (const Value* f = format != nullptr ? find("format") : nullptr;
        f != nullptr && !(f->kind == Kind::String && f->s == format))
      return std::string("format must be \"") + format + "\"";
    if (const Value* v = find("version"); v != nullptr && !holds_integer(*v, version))
      return "unsupported profile version";
    return {};
  }

  // The member named key (the last of a repeated key, as with a JSON tree), or null.
  const Value* find(const char* key) const noexcept {
    for (auto it = members_.rbegin(); it != members_.rend(); ++it)
      if (it->first == key) return &it->second;
    return nullptr;
  }
  // Every member in document order, a repeated key as often as it stands.
  const std::vector<std::pair<std::string, Value>>& members() const noexcept { return members_; }

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
  bool number_float(number_float_t v, const string_t& text) override {
    if (!std::isfinite(v)) {  // the parser reads 1e999 as infinity
      syntax_error_ =
          "number out of range: " + text.substr(0, 40) + (text.size() > 40 ? "..." : "");
      return false;
    }
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
  // Where and why the text is not JSON: NaN and Infinity are not JSON numbers, and a number
  // beyond a double's range is an error, not infinity.
  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) override {
    if (e.id == 406) {  // a number beyond a double's range
      syntax_error_ =
          "number out of range: " + token.substr(0, 40) + (token.size() > 40 ? "..." : "");
      return false;
    }
    // nlohmann's text: "[json.exception.parse_error.101] parse error at line 1, column 14:
    // syntax error while parsing value - invalid literal; last read: '{"a": N'": the part after
    // the location, without the echo of the input.
    std::string what = e.what();
    if (const auto at = what.find(": "); at != std::string::npos) what = what.substr(at + 2);
    what = what.substr(0, what.find("; last read"));
    syntax_error_ =
        "not valid JSON at byte " + std::to_string(position) + ": " + what.substr(0, 120);
    return false;
  }

 private:
  static bool holds_integer(const Value& x, std::int64_t expected) noexcept {
    return (x.kind == Kind::Int && x.i == expected) ||
           (x.kind == Kind::Uint && expected >= 0 && x.u == static_cast<std::uint64_t>(expected));
  }
  static Value of(Kind k) {
    Value v;
    v.kind = k;
    return v;
  }
  bool scalar(Value v) {
    if (depth_ == 0) return false;  // the document is not an object
    if (depth_ == 1) members_.emplace_back(key_, std::move(v));
    return true;
  }
  bool open(bool object) {
    if (depth_ == 0) {
      if (!object) return false;
      is_object_ = true;
    } else if (depth_ == 1) {
      members_.emplace_back(key_, of(Kind::Nested));
    }
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }

  std::string syntax_error_;
  bool is_object_ = false;
  int depth_ = 0;
  std::string key_;
  std::vector<std::pair<std::string, Value>> members_;
};

// Stores x in v when it has v's type and fits; false (v untouched) otherwise. 2.5 cores is an
// error, not 2, and so is an integer the field cannot hold (a cast would wrap 2^32 + 3 to 3); a
// floating-point field takes any number.
template <class T>
bool read_value(const FlatJsonObject::Value& x, T& v) {
  using Kind = FlatJsonObject::Kind;
  if constexpr (std::is_same_v<T, bool>) {
    if (x.kind != Kind::Bool) return false;
    v = x.b;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (x.kind != Kind::String) return false;
    v = x.s;
  } else if constexpr (std::is_integral_v<T>) {
    if (x.kind == Kind::Uint) {
      if (x.u > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return false;
      v = static_cast<T>(x.u);
    } else if (x.kind == Kind::Int) {
      if (x.i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
          x.i > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
        return false;
      v = static_cast<T>(x.i);
    } else {
      return false;
    }
  } else {
    if (x.kind == Kind::Float)
      v = static_cast<T>(x.d);
    else if (x.kind == Kind::Int)
      v = static_cast<T>(x.i);
    else if (x.kind == Kind::Uint)
      v = static_cast<T>(x.u);
    else
      return false;
  }
  return true;
}

// The f of for_each_field that reads the struct from an object: a missing key keeps the
// field's value; the first field of the wrong type or out of range ends the reading, its key in
// bad.
class FieldReader {
 public:
  explicit FieldReader(const FlatJsonObject& obj) noexcept : obj_(obj) {}

  template <class T>
  void operator()(const char* key, T& v) {
    if (!bad.empty()) return;
    const FlatJsonObject::Value* x = obj_.find(key);
    if (x != nullptr && !read_value(*x, v)) bad = key;
  }

  std::string bad;

 private:
  const FlatJsonObject& obj_;
};

}  // namespace adaptcore
