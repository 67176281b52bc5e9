// Sparse constants (TFLite's tensor.sparsity) made dense at load time.
//
// A sparse tensor's buffer holds only the values its index structure reaches, in
// traversal order. The structure is a tree of levels, one per entry of
// traversal_order: the n dense dimensions in some order, then (block-sparse) k
// block dimensions, block dimension n+j splitting dense dimension block_map[j]
// into blocks of the block level's dense_size. A DENSE level has dense_size
// children per parent position; a SPARSE_CSR level gives parent position p the
// children array_indices[array_segments[p] .. array_segments[p+1]), each carrying
// its coordinate in that dimension. A leaf's position is the index of its value.
// Kiln runs dense kernels on the result (what TFLite's DENSIFY operator does at
// run time, done once here).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/constant.h"
#include "ir/dtype.h"

namespace kiln::tflite_fb {
struct SparsityParameters;
}

namespace kiln::tflite {

// The dense tensors Kiln builds from sparse ones are capped here: a few bytes of
// index structure must not make the compiler allocate gigabytes.
constexpr size_t kMaxDensifiedBytes = size_t(256) << 20;

// The dense row-major `dtype` `shape` tensor that `sparsity` and the `value_bytes`
// bytes at `values` describe (zeros where no value is stored). Throws a one-line
// CompileError starting with `who` for a structure that is inconsistent with the
// shape or the values (sizes, permutations, segments, indices out of range).
ConstantPtr densify(DType dtype, const std::vector<int64_t>& shape, const tflite_fb::SparsityParameters& sparsity,
                    const uint8_t* values, size_t value_bytes, const std::string& who);

}  // namespace kiln::tflite
