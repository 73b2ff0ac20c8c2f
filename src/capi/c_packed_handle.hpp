// The state behind the C API's ac_packed_t (prepacked fp32 weights), shared by the packed and
// the grouped entry points.
#pragma once

#include "adaptcore/adaptcore.hpp"

struct ac_packed_s {
  adaptcore::PackedWeights w;
};
