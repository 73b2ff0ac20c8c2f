// QuantizedWeights: the handle, weight quantization (symmetric, per column or per group of K)
// and the one-time packing into the kernels' panel layout (core/wq_weights.hpp).
#include "core/wq_weights.hpp"
#include "core/exception_status.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <vector>

#include "core/internal_access.hpp"
#include "core/operand_bytes.hpp"
#include "core/weight_storage.hpp"

namespace adaptcore {
namespace {

using detail::QuantizedWeightsImpl;

// The checks shared by both quantize functions, in the order of the GEMM calls: layout,
// transpose, dimensions, format and group, leading dimension, size overflow, null pointers.
Status check_weights_call(Layout layout, Trans transw, int64_t k, int64_t n, const void* w,
                          int64_t ldw, int64_t elem_bytes, WeightQuantSpec spec, ByteOperand& op) {
  if (!valid_layout(layout)) return Status::InvalidLayout;
  if (!valid_trans(transw)) return Status::InvalidTranspose;
  if (k < 1 || n < 1) return Status::InvalidDimension;
  if (spec.format != WeightFormat::Int8 && spec.format != WeightFormat::Int4)
    return Status::InvalidArgument;
  const int64_t g = spec.group_size;
  if (g < 0 || g > kWqMaxGroup || g % 32 != 0) return Status::InvalidArgument;
  if (g == 0 && spec.format == WeightFormat::Int4) return Status::InvalidArgument;
  const bool row = layout == Layout::RowMajor, tw = transw != Trans::No;
  if (ldw < min_leading_dim(row, tw, k, n)) return Status::InvalidLeadingDimension;
  // op(W)(p, j): element strides along k and along n.
  op = stored_operand(w, k, n, row, tw, ldw, elem_bytes);
  const int64_t len = span_bytes(op);
  if (len < 0) return Status::SizeOverflow;
  if (w == nullptr) return Status::NullPointer;
  if (!range_fits(w, len)) return Status::SizeOverflow;
  return Status::Ok;
}

// Packs op(W) given as integers (row-major k x n, q[p * n + j]) and scales (per column: n, per
// group: groups x n) into a new handle.
Status build(int64_t k, int64_t n, WeightQuantSpec spec, const std::vector<std::int8_t>& q,
             const std::vector<float>& scales, QuantizedWeights& out) {
  auto impl = std::make_unique<QuantizedWeightsImpl>();
  impl->k = k, impl->n = n;
  impl->format = spec.format;
  impl->group_size = spec.group_size;
  impl->act_group = spec.group_size > 0 ? spec.group_size : kWqColumnActGroup;
  impl->quads = (k + 3) / 4;
  impl->groups = (k + impl->act_group - 1) / impl->act_group;
  impl->panels = (n + kWqNr - 1) / kWqNr;
  impl->panel_bytes = static_cast<std::size_t>(impl->quads) * (impl->int4() ? 64 : 128);
  impl->packed = weight_array<std::uint8_t>(impl->packed_size(), true);
  const std::uint8_t off = impl->offset();
  for (int64_t pnl = 0; pnl < impl->panels; ++pnl) {
    std::uint8_t* dst = impl->packed.get() + static_cast<std::size_t>(pnl) * impl->panel_bytes;
    for (int64_t qd = 0; qd < impl->quads; ++qd) {
      for (int jj = 0; jj < kWqNr; ++jj) {
        const int64_t j = pnl * kWqNr + jj;
        for (int t = 0; t < 4; ++t) {
          const int64_t p = qd * 4 + t;
          const int v = (p < k && j < n) ? q[static_cast<std::size_t>(p * n + j)] : 0;
          const auto u = static_cast<std::uint8_t>(v + off);
          if (!impl->int4()) {
            dst[qd * 128 + jj * 4 + t] = u;
          } else {
            std::uint8_t& b = dst[qd * 64 + (jj % 16) * 4 + t];
            b = static_cast<std::uint8_t>(jj < 16 ? (b & 0xF0u) | u : (b & 0x0Fu) | (u << 4));
          }
        }
      }
    }
  }
  const std::size_t pn = static_cast<std::size_t>(impl->panels) * kWqNr;
  if (spec.group_size == 0) {
    impl->col_scale = aligned_array<float>(pn);
    for (int64_t j = 0; j < n; ++j) impl->col_scale.get()[j] = scales[static_cast<std::size_t>(j)];
  } else {
    const auto groups = static_cast<std::size_t>(impl->groups);
    impl->group_scale = aligned_array<float>(pn * groups);
    for (int64_t j = 0; j < n; ++j)
      for (std::size_t g = 0; g < groups; ++g)
        impl->group_scale.get()[(static_cast<std::size_t>(j / kWqNr) * groups + g) * kWqNr +
                                static_cast<std::size_t>(j % kWqNr)] =
            scales[g * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)];
  }
  out = detail::InternalAccess::make_weights(std::move(impl));
  return Status::Ok;
}

template <class T>
T element(const ByteOperand& op, int64_t p, int64_t j) {
  return static_cast<const T*>(op.ptr)[p * op.rs + j * op.cs];
}

}  // namespace

QuantizedWeights detail::InternalAccess::make_weights(
    std::unique_ptr<QuantizedWeightsImpl> impl) noexcept {
  return QuantizedWeights(std::move(impl));
}

QuantizedWeights::QuantizedWeights() noexcept = default;
QuantizedWeights::~QuantizedWeights() = default;
QuantizedWeights::QuantizedWeights(QuantizedWeights&& other) noexcept = default;
QuantizedWeights& QuantizedWeights::operator=(QuantizedWeights&& other) noexcept = default;
QuantizedWeights::QuantizedWeights(std::unique_ptr<detail::QuantizedWeightsImpl> impl) noexcept
    : impl_(std::move(impl)) {}

int64_t QuantizedWeights::k() const noexcept { return impl_ ? impl_->k : 0; }
int64_t QuantizedWeights::n() const noexcept { return impl_ ? impl_->n : 0; }
WeightFormat QuantizedWeights::format() const noexcept {
  return impl_ ? impl_->format : WeightFormat::Int8;
}
int64_t QuantizedWeights::group_size() const noexcept { return impl_ ? impl_->group_size : 0; }
std::size_t QuantizedWeights::packed_bytes() const noexcept {
  return impl_ ? impl_->packed_size() : 0;
}

Status quantize_weights(Layout layout, Trans transw, int64_t k, int64_t n, const float* w,
                        int64_t ldw, WeightQuantSpec spec, QuantizedWeights& out,
                        Context& /*ctx*/) noexcept {
  ByteOperand op{};
  const Status s = check_weights_call(layout, transw, k, n, w, ldw, 4, spec, op);
  if (s != Status::Ok) return s;
  try {
    const int64_t group = spec.group_size > 0 ? spec.group_size : k;
    const int64_t groups = (k + group - 1) / group;
    const float qmax = spec.format == WeightFormat::Int4 ? 7.0f : 127.0f;
    std::vector<std::int8_t> q(static_cast<std::size_t>(k * n));
    std::vector<float> scales(static_cast<std::size_t>(groups * n));
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t p0 = g * group, p1 = std::min(k, p0 + group);
        float amax = 0.0f;
        for (int64_t p = p0; p < p1; ++p) {
          const float v = element<float>(op, p, j);
          if (!std::isfinite(v)) return Status::InvalidArgument;
          amax = std::max(amax, std::fabs(v));
        }
        // Division, not a reciprocal: max|w| in the subnormal range would overflow 1 / scale.
        const float scale = amax / qmax;
        scales[static_cast<std::size_t>(g * n + j)] = scale;
        for (int64_t p = p0; p < p1; ++p) {
          const float v = scale == 0.0f ? 0.0f : std::nearbyint(element<float>(op, p, j) / scale);
          q[static_cast<std::size_t>(p * n + j)] =
              static_cast<std::int8_t>(std::clamp(v, -qmax, qmax));
        }
      }
    }
    return build(k, n, spec, q, scales, out);
  } catch (...) {
    return exception_status(nullptr);
  }
}

Status quantize_weights_s8(Layout layout, Trans transw, int64_t k, int64_t n, const std::int8_t* w,
                           int64_t ldw, const float* scales, WeightQuantSpec spec,
                           QuantizedWeights& out, Context& /*ctx*/) noexcept {
  ByteOperand op{};
  const Status s = check_weights_call(layout, transw, k, n, w, ldw, 1, spec, op);
  if (s != Status::Ok) return s;
  if (scales == nullptr) return Status::NullPointer;
  try {
    const int64_t groups = spec.group_size > 0 ? (k + spec.group_size - 1) / spec.group_size : 1;
    const int lo = spec.format == WeightFormat::Int4 ? -8 : -128;
    const int hi = spec.format == WeightFormat::Int4 ? 7 : 127;
    std::vector<std::int8_t> q(static_cast<std::size_t>(k * n));
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) {
        const std::int8_t v = element<std::int8_t>(op, p, j);
        if (v < lo || v > hi) return Status::InvalidArgument;
        q[static_cast<std::size_t>(p * n + j)] = v;
      }
    std::vector<float> sc(scales, scales + groups * n);
    for (float v : sc)
      if (!std::isfinite(v)) return Status::InvalidArgument;
    return build(k, n, spec, q, sc, out);
  } catch (...) {
    return exception_status(nullptr);
  }
}

}  // namespace adaptcore
