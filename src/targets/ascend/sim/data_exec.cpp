#include "targets/ascend/sim/data_exec.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "targets/ascend/half_float.hpp"

namespace adaptcore::ascend::sim {
namespace {

std::size_t idx(int64_t v) { return static_cast<std::size_t>(v); }

}  // namespace

DataExecutor::DataExecutor(const AscendShape& s, const TilingPlan& p, std::uint64_t seed)
    : s_(s), p_(p), e_(elem_bytes(s.dtype)), c0_(c0_elems(s.dtype)) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  std::uniform_int_distribution<int> int8(-128, 127);
  const int64_t a_size = (s.trans_a ? s.k : s.m) * s.pitch_a();
  const int64_t b_size = (s.trans_b ? s.n : s.k) * s.pitch_b();
  if (s.dtype == InDType::Int8) {
    a8_.resize(idx(a_size));
    b8_.resize(idx(b_size));
    for (auto& v : a8_) v = static_cast<std::int8_t>(int8(rng));
    for (auto& v : b8_) v = static_cast<std::int8_t>(int8(rng));
  } else {
    auto round = [&](float f) {
      return s.dtype == InDType::Fp16 ? fp16_from_float(f) : bf16_from_float(f);
    };
    a16_.resize(idx(a_size));
    b16_.resize(idx(b_size));
    for (auto& v : a16_) v = round(uni(rng));
    for (auto& v : b16_) v = round(uni(rng));
  }
  mpad_all_ = round_up(s.m, 16);
  npad_all_ = round_up(s.n, 16);
  kpad_all_ = round_up(s.k, c0_);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (p.relayout_a) a_copy_.assign(idx(mpad_all_ * kpad_all_), nan);
  if (p.relayout_b) b_copy_.assign(idx(npad_all_ * kpad_all_), nan);
  c_.assign(idx(s.m * s.n), nan);
  c_int_.assign(s.dtype == InDType::Int8 ? idx(s.m * s.n) : 0, std::numeric_limits<int64_t>::min());
}

float DataExecutor::stored(const std::vector<std::uint16_t>& h16,
                           const std::vector<std::int8_t>& i8, int64_t i) const {
  switch (s_.dtype) {
    case InDType::Fp16: return float_from_fp16(h16[idx(i)]);
    case InDType::Bf16: return float_from_bf16(h16[idx(i)]);
    case InDType::Int8: return static_cast<float>(i8[idx(i)]);
  }
  return 0;
}

float DataExecutor::a_at(int64_t i, int64_t q) const {
  return stored(a16_, a8_, s_.trans_a ? q * s_.pitch_a() + i : i * s_.pitch_a() + q);
}

float DataExecutor::b_at(int64_t q, int64_t j) const {
  return stored(b16_, b8_, s_.trans_b ? j * s_.pitch_b() + q : q * s_.pitch_b() + j);
}

std::uint8_t* DataExecutor::local(const BufferDecl& b) {
  auto& m = mem_[static_cast<int>(b.mem)];
  if (m.size() < idx(b.offset + b.bytes)) m.resize(idx(b.offset + b.bytes));
  return m.data() + b.offset;
}

// Buffers hold input-typed elements: the value is stored back in the input type (exact: every
// value that reaches a buffer came from an input of that type, or is a zero pad).
void DataExecutor::put(std::uint8_t* base, int64_t i, float v) const {
  if (s_.dtype == InDType::Int8) {
    const auto b = static_cast<std::int8_t>(v);
    std::memcpy(base + i, &b, 1);
    return;
  }
  const std::uint16_t h = s_.dtype == InDType::Fp16 ? fp16_from_float(v) : bf16_from_float(v);
  std::memcpy(base + 2 * i, &h, 2);
}

float DataExecutor::get(const std::uint8_t* base, int64_t i) const {
  if (s_.dtype == InDType::Int8) {
    std::int8_t b = 0;
    std::memcpy(&b, base + i, 1);
    return static_cast<float>(b);
  }
  std::uint16_t h = 0;
  std::memcpy(&h, base + 2 * i, 2);
  return s_.dtype == InDType::Fp16 ? float_from_fp16(h) : float_from_bf16(h);
}

void DataExecutor::execute(const Instr& in, const std::vector<BufferDecl>& buffers) {
  auto buf = [&](int id) -> const BufferDecl& { return buffers[idx(id)]; };
  const int64_t rp = in.rows_pad, cp = in.cols_pad;
  switch (in.op) {
    case Op::GmToL1: {
      // NZ: element (r, q) at ((q / C0) * rows_pad + r) * C0 + q % C0, zero padded.
      std::uint8_t* dst = local(buf(in.dst));
      const bool is_a = in.operand == Operand::A;
      const bool copy = is_a ? p_.relayout_a : p_.relayout_b;
      for (int64_t r = 0; r < rp; ++r)
        for (int64_t q = 0; q < cp; ++q) {
          float v = 0;
          if (r < in.rows && q < in.cols) {
            const int64_t row = in.row0 + r, kk = in.col0 + q;
            if (copy)
              v = (is_a ? a_copy_ : b_copy_)[idx(row * kpad_all_ + kk)];
            else
              v = is_a ? a_at(row, kk) : b_at(kk, row);
          }
          put(dst, ((q / c0_) * rp + r) * c0_ + q % c0_, v);
        }
      break;
    }
    case Op::L1ToL0: {
      // zZ: element (r, q) at ((r / 16) * (cols_pad / C0) + q / C0) * 16 * C0 + (r % 16) * C0 + q %
      // C0.
      const std::uint8_t* src = local(buf(in.src));
      std::uint8_t* dst = local(buf(in.dst));
      const int64_t kf = cp / c0_;
      for (int64_t r = 0; r < rp; ++r)
        for (int64_t q = 0; q < cp; ++q) {
          const int64_t kk = in.col0 + q;
          const float v = get(src, ((kk / c0_) * rp + r) * c0_ + kk % c0_);
          put(dst, ((r / 16) * kf + q / c0_) * 16 * c0_ + (r % 16) * c0_ + q % c0_, v);
        }
      break;
    }
    case Op::Mmad: {
      const std::uint8_t* a = local(buf(in.src));
      const std::uint8_t* b = local(buf(in.src2));
      std::uint8_t* c = local(buf(in.dst));
      const int64_t dp = in.depth_pad, kf = dp / c0_;
      fa_.resize(idx(rp * dp));
      fb_.resize(idx(cp * dp));
      for (int64_t r = 0; r < rp; ++r)
        for (int64_t q = 0; q < dp; ++q)
          fa_[idx(r * dp + q)] =
              get(a, ((r / 16) * kf + q / c0_) * 16 * c0_ + (r % 16) * c0_ + q % c0_);
      for (int64_t n = 0; n < cp; ++n)
        for (int64_t q = 0; q < dp; ++q)
          fb_[idx(n * dp + q)] =
              get(b, ((n / 16) * kf + q / c0_) * 16 * c0_ + (n % 16) * c0_ + q % c0_);
      for (int64_t r = 0; r < rp; ++r)
        for (int64_t n = 0; n < cp; ++n) {
          // L0C NZ: element (r, n) at ((n / 16) * rows_pad + r) * 16 + n % 16, 4 bytes each.
          std::uint8_t* at = c + 4 * (((n / 16) * rp + r) * 16 + n % 16);
          const float* ar = &fa_[idx(r * dp)];
          const float* bn = &fb_[idx(n * dp)];
          if (s_.dtype == InDType::Int8) {
            std::int32_t acc = 0;
            if (!in.init) std::memcpy(&acc, at, 4);
            for (int64_t q = 0; q < dp; ++q)
              acc += static_cast<std::int32_t>(ar[q]) * static_cast<std::int32_t>(bn[q]);
            std::memcpy(at, &acc, 4);
          } else {
            float acc = 0;
            if (!in.init) std::memcpy(&acc, at, 4);
            for (int64_t q = 0; q < dp; ++q) acc += ar[q] * bn[q];  // exact product, fp32 sum
            std::memcpy(at, &acc, 4);
          }
        }
      break;
    }
    case Op::L0CToGm: {
      const std::uint8_t* c = local(buf(in.src));
      for (int64_t r = 0; r < in.rows; ++r)
        for (int64_t n = 0; n < in.cols; ++n) {
          const std::uint8_t* at = c + 4 * (((n / 16) * rp + r) * 16 + n % 16);
          const std::size_t o = idx((in.row0 + r) * s_.n + in.col0 + n);
          if (s_.dtype == InDType::Int8) {
            std::int32_t v = 0;
            std::memcpy(&v, at, 4);
            c_int_[o] = in.atomic ? c_int_[o] + v : v;
          } else {
            float v = 0;
            std::memcpy(&v, at, 4);
            c_[o] = in.atomic ? c_[o] + v : v;
          }
        }
      break;
    }
    case Op::GmToUb: {
      std::uint8_t* dst = local(buf(in.dst));
      const bool is_a = in.operand == Operand::A;
      for (int64_t r = 0; r < in.rows; ++r)
        for (int64_t q = 0; q < in.cols; ++q) {
          const int64_t i = in.row0 + r, j = in.col0 + q;  // stored coordinates
          float v = 0;
          if (is_a)
            v = s_.trans_a ? a_at(j, i) : a_at(i, j);
          else
            v = s_.trans_b ? b_at(j, i) : b_at(i, j);
          put(dst, r * cp + q, v);
        }
      break;
    }
    case Op::UbToGm: {
      if (in.operand == Operand::C) {
        for (int64_t r = 0; r < in.rows; ++r)
          for (int64_t n = 0; n < in.cols; ++n) {
            const std::size_t o = idx((in.row0 + r) * s_.n + in.col0 + n);
            if (s_.dtype == InDType::Int8)
              c_int_[o] = 0;
            else
              c_[o] = 0;
          }
        break;
      }
      const std::uint8_t* src = local(buf(in.src));
      const bool is_a = in.operand == Operand::A;
      const bool trans = is_a ? s_.trans_a : s_.trans_b;
      auto& copy = is_a ? a_copy_ : b_copy_;
      for (int64_t r = 0; r < in.rows; ++r)
        for (int64_t q = 0; q < in.cols; ++q) {
          const int64_t i = in.row0 + r, j = in.col0 + q;
          // Logical coordinates of the copy: A as m x k, B^T as n x k.
          int64_t row = 0, kk = 0;
          if (is_a) {
            row = trans ? j : i;
            kk = trans ? i : j;
          } else {
            row = trans ? i : j;
            kk = trans ? j : i;
          }
          copy[idx(row * kpad_all_ + kk)] = get(src, r * cp + q);
        }
      break;
    }
    default: break;
  }
}

double DataExecutor::check(int64_t* bad_row, int64_t* bad_col) const {
  double worst = 0;
  for (int64_t i = 0; i < s_.m; ++i)
    for (int64_t j = 0; j < s_.n; ++j) {
      double ref = 0, mag = 0;
      for (int64_t q = 0; q < s_.k; ++q) {
        const double prod = static_cast<double>(a_at(i, q)) * b_at(q, j);
        ref += prod;
        mag += std::fabs(prod);
      }
      double ratio = 0;
      if (s_.dtype == InDType::Int8) {
        ratio = static_cast<double>(c_int_[idx(i * s_.n + j)]) == ref ? 0.0 : HUGE_VAL;
      } else {
        const double got = c_[idx(i * s_.n + j)];
        const double allowed =
            (static_cast<double>(s_.k) + 2 + static_cast<double>(std::max(1, p_.split_k)) + 64) *
                0x1p-24 * mag +
            1e-30;
        ratio = std::isfinite(got) ? std::fabs(got - ref) / allowed : HUGE_VAL;
      }
      if (ratio > worst) {
        worst = ratio;
        if (bad_row != nullptr) *bad_row = i;
        if (bad_col != nullptr) *bad_col = j;
      }
    }
  return worst;
}

}  // namespace adaptcore::ascend::sim
