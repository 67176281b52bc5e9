#include "tflite/densify.h"

#include <cstring>

#include "ir/graph.h"
#include "tflite/tflite_schema_generated.h"
#include "util/error.h"

namespace kiln::tflite {

namespace fb = kiln::tflite_fb;

namespace {

// One traversal level, checked: which dimension it walks (0..n-1 dense, n..n+k-1
// block) and how many coordinates that dimension has.
struct Level {
  int dim = 0;
  int64_t extent = 0;
  bool csr = false;
  std::vector<int64_t> segments, indices;
};

// The elements of a SparseIndexVector (any of its three integer widths).
std::vector<int64_t> index_vector(fb::SparseIndexVector type, const void* table) {
  std::vector<int64_t> out;
  auto copy = [&](const auto* v) {
    if (v)
      for (auto x : *v) out.push_back(int64_t(x));
  };
  switch (type) {
    case fb::SparseIndexVector::Int32Vector: copy(static_cast<const fb::Int32Vector*>(table)->values()); break;
    case fb::SparseIndexVector::Uint16Vector: copy(static_cast<const fb::Uint16Vector*>(table)->values()); break;
    case fb::SparseIndexVector::Uint8Vector: copy(static_cast<const fb::Uint8Vector*>(table)->values()); break;
    default: break;
  }
  return out;
}

// The levels of `sp` for a tensor of `shape`, every size and permutation checked.
std::vector<Level> read_levels(const std::vector<int64_t>& shape, const fb::SparsityParameters& sp,
                               const std::string& who) {
  const int n = int(shape.size());
  const int k = sp.block_map() ? int(sp.block_map()->size()) : 0;
  const int levels = n + k;
  if (!sp.traversal_order() || int(sp.traversal_order()->size()) != levels)
    throw CompileError(who + ": its sparsity traversal_order needs " + std::to_string(levels) +
                       " entries (rank + block dimensions)");
  if (!sp.dim_metadata() || int(sp.dim_metadata()->size()) != levels)
    throw CompileError(who + ": its sparsity dim_metadata needs " + std::to_string(levels) + " entries");
  std::vector<int> blocked(n, -1);  // dense dimension -> its block dimension's j
  for (int j = 0; j < k; ++j) {
    const int d = sp.block_map()->Get(j);
    if (d < 0 || d >= n || blocked[d] >= 0)
      throw CompileError(who + ": its sparsity block_map entry " + std::to_string(d) +
                         " is not a distinct dimension below the rank " + std::to_string(n));
    blocked[d] = j;
  }
  std::vector<Level> out(levels);
  std::vector<bool> seen(levels, false);
  for (int l = 0; l < levels; ++l) {
    const int d = sp.traversal_order()->Get(l);
    const bool ok = l < n ? (d >= 0 && d < n) : (d >= n && d < levels);
    if (!ok || seen[d])
      throw CompileError(who + ": its sparsity traversal_order is not the dense dimensions then the block "
                               "dimensions, each once");
    seen[d] = true;
    out[l].dim = d;
  }
  // Block sizes come from the block levels, which must be dense.
  std::vector<int64_t> block(n, 1);
  for (int l = 0; l < levels; ++l) {
    const fb::DimensionMetadata* m = sp.dim_metadata()->Get(l);
    if (!m) throw CompileError(who + ": its sparsity dim_metadata " + std::to_string(l) + " is missing");
    if (out[l].dim < n) continue;
    const int d = sp.block_map()->Get(out[l].dim - n);
    if (m->format() != fb::DimensionType::DENSE || m->dense_size() <= 0 || shape[d] % m->dense_size() != 0)
      throw CompileError(who + ": its sparsity block level " + std::to_string(l) +
                         " must be dense with a size dividing dimension " + std::to_string(d) + " (" +
                         std::to_string(shape[d]) + ")");
    block[d] = m->dense_size();
  }
  for (int l = 0; l < levels; ++l) {
    const fb::DimensionMetadata* m = sp.dim_metadata()->Get(l);
    Level& lv = out[l];
    lv.extent = lv.dim < n ? shape[lv.dim] / block[lv.dim] : block[sp.block_map()->Get(lv.dim - n)];
    if (m->format() == fb::DimensionType::DENSE) {
      if (m->dense_size() != lv.extent)
        throw CompileError(who + ": its sparsity level " + std::to_string(l) + " has dense_size " +
                           std::to_string(m->dense_size()) + " but the shape gives " + std::to_string(lv.extent));
    } else if (m->format() == fb::DimensionType::SPARSE_CSR) {
      lv.csr = true;
      lv.segments = index_vector(m->array_segments_type(), m->array_segments());
      lv.indices = index_vector(m->array_indices_type(), m->array_indices());
    } else {
      throw CompileError(who + ": its sparsity level " + std::to_string(l) + " has an unknown format " +
                         std::to_string(int(m->format())));
    }
  }
  return out;
}

// Checks each CSR level against the number of positions above it and returns the
// number of leaves (values) the structure reaches.
int64_t count_leaves(const std::vector<Level>& levels, const std::string& who) {
  int64_t positions = 1;
  for (size_t l = 0; l < levels.size(); ++l) {
    const Level& lv = levels[l];
    if (!lv.csr) {
      positions *= lv.extent;  // bounded by the tensor's element count (< 2^31)
      continue;
    }
    const std::string where = who + ": its sparsity level " + std::to_string(l);
    if (int64_t(lv.segments.size()) != positions + 1)
      throw CompileError(where + " has " + std::to_string(lv.segments.size()) + " segment bounds, expected " +
                         std::to_string(positions + 1));
    if (lv.segments.front() != 0 || lv.segments.back() != int64_t(lv.indices.size()))
      throw CompileError(where + ": its segments must run from 0 to the number of indices (" +
                         std::to_string(lv.indices.size()) + ")");
    for (size_t p = 1; p < lv.segments.size(); ++p)
      if (lv.segments[p] < lv.segments[p - 1]) throw CompileError(where + ": its segments decrease");
    for (int64_t i : lv.indices)
      if (i < 0 || i >= lv.extent)
        throw CompileError(where + " has index " + std::to_string(i) + " outside [0, " + std::to_string(lv.extent) +
                           ")");
    positions = int64_t(lv.indices.size());
  }
  return positions;
}

}  // namespace

ConstantPtr densify(DType dtype, const std::vector<int64_t>& shape, const fb::SparsityParameters& sparsity,
                    const uint8_t* values, size_t value_bytes, const std::string& who) {
  const std::vector<Level> levels = read_levels(shape, sparsity, who);
  const size_t esize = dtype_size(dtype);
  const int64_t leaves = count_leaves(levels, who);
  if (uint64_t(leaves) * esize != value_bytes)
    throw CompileError(who + ": its buffer has " + std::to_string(value_bytes) + " bytes but its sparsity reaches " +
                       std::to_string(leaves) + " values of " + dtype_name(dtype));
  const int64_t elements = shape_elements(shape);
  if (uint64_t(elements) * esize > kMaxDensifiedBytes)
    throw CompileError(who + ": densified it would take " + std::to_string(uint64_t(elements) * esize) +
                       " bytes; Kiln densifies sparse constants up to " + std::to_string(kMaxDensifiedBytes));

  const int n = int(shape.size());
  std::vector<int64_t> stride(n, 1), block(n, 1);
  for (int d = n - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
  for (const Level& lv : levels)
    if (lv.dim >= n) block[sparsity.block_map()->Get(lv.dim - n)] = lv.extent;

  std::vector<uint8_t> dense(size_t(elements) * esize, 0);
  std::vector<int64_t> coord(levels.size(), 0);  // per traversal dimension (dense then block)
  // Depth-first over the levels; `pos` is the position within level `l`'s parent list.
  auto walk = [&](auto& self, size_t l, int64_t pos) -> void {
    if (l == levels.size()) {
      int64_t at = 0;
      for (int d = 0; d < n; ++d) {
        int64_t c = coord[d];
        for (size_t j = 0; sparsity.block_map() && j < sparsity.block_map()->size(); ++j)
          if (sparsity.block_map()->Get(j) == d) c = c * block[d] + coord[n + j];
        at += c * stride[d];
      }
      std::memcpy(dense.data() + size_t(at) * esize, values + size_t(pos) * esize, esize);
      return;
    }
    const Level& lv = levels[l];
    if (!lv.csr) {
      for (int64_t i = 0; i < lv.extent; ++i) {
        coord[lv.dim] = i;
        self(self, l + 1, pos * lv.extent + i);
      }
      return;
    }
    for (int64_t q = lv.segments[pos]; q < lv.segments[pos + 1]; ++q) {
      coord[lv.dim] = lv.indices[q];
      self(self, l + 1, q);
    }
  };
  walk(walk, 0, 0);
  return Constant::from_bytes(dtype, shape, std::move(dense));
}

}  // namespace kiln::tflite
