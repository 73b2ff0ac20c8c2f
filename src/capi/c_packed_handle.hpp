// The state behind the C API's weight handles, ac_packed_t (prepacked fp32 weights) and
// ac_weights_t (quantized weights), shared by their own entry points and the grouped one.
#pragma once

#include "adaptcore/adaptcore.hpp"

struct ac_packed_s {
  adaptcore::PackedWeights w;
};

struct ac_weights_s {
  adaptcore::QuantizedWeights w;
};
