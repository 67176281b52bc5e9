// Float32 weights re-laid out for the register-blocked kernels of crt/src/kernels/
// (see crt/src/kernels/gemm_tiles_f32.h and depthwise3x3_f32.h).
#pragma once

#include <cstdint>

#include "ir/constant.h"

namespace kiln {

// `groups` weight matrices [rows][k] (row-major, the rows of group g at g * rows)
// as blocks of four rows, each [k][4], the last block of a group padded with zero rows.
ConstantPtr pack_f32_gemm_blocks(const Constant& w, int64_t groups, int64_t rows, int64_t k);

// The same for B of a Gemm / MatMul read as [k][n] (transposed: row j of the
// product is column j of B).
ConstantPtr pack_f32_gemm_blocks_transposed(const Constant& b, int64_t k, int64_t n);

// Depthwise 3x3 filters [c][1][3][3] and their bias (null: zeros) as ten floats per
// channel: the nine taps, then the bias.
ConstantPtr pack_f32_depthwise3x3(const Constant& w, const Constant* bias, int64_t channels);

}  // namespace kiln
