// An immutable compile-time tensor (see docs/folding.md).
//
// A Constant is a *description* of elements, not necessarily a dense array:
//  - storage: a reference-counted ConstantBuffer that is owned heap memory, a
//    slice of the loaded model file (initializer raw data, no copy) or a slice of
//    a memory-mapped external data file;
//  - a strided view of that buffer (transpose, broadcast/expand, reshape, slice and
//    splat are new strides over the same bytes, never a copy);
//  - a chain of lazy element-wise transforms (cast, negate, unary math, binary with
//    a small or splat operand) applied in bulk when the elements are read.
//
// Folding reads and computes in wide precision (WideNum: double for every float
// type, int64 for signed integers and bool, uint64 for unsigned) and stores float
// results as double; the value is rounded to its dtype exactly once, when the bytes
// are asked for (data(), write_bytes(), as_double()), i.e. at emission.
//
// Copying a ConstantPtr never copies elements; storage is freed as soon as the
// last constant viewing it goes away.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace kiln {

class Constant;
using ConstantPtr = std::shared_ptr<const Constant>;

// One element in folding precision. Which member is meaningful follows wide_kind().
union WideNum {
  double f;
  int64_t i;
  uint64_t u;
};
static_assert(sizeof(WideNum) == 8);

enum class WideKind : uint8_t { Float, Int, UInt };
// Float for float16/bfloat16/float32/float64, UInt for unsigned integers, Int for
// signed integers and bool.
WideKind wide_kind(DType t);
// The buffer dtype folding results of `t` are stored in: float64 for every float
// type, the type itself for integers (they wrap at every step, see docs/folding.md).
DType wide_storage_dtype(DType t);
// Rounds a wide number of kind wide_kind(t) to the nearest value of `t` (round to
// nearest even for floats, two's-complement wrap for integers, !=0 for bool), and
// returns it widened again.
WideNum round_to(DType t, WideNum v);
// Converts a wide number between kinds with ONNX Cast semantics (float -> integer
// truncates toward zero; -> bool is != 0).
WideNum convert_kind(WideKind from, WideKind to, WideNum v);

// Immutable bytes with shared ownership. The data pointer stays valid for the
// lifetime of the buffer; `owner` keeps whatever backs it alive (a vector, the
// whole model mapping, ...).
class ConstantBuffer {
 public:
  enum class Origin { Owned, ModelData, MappedFile };

  ConstantBuffer(const uint8_t* data, size_t size, Origin origin, std::shared_ptr<const void> owner,
                 std::function<void()> on_release = {});
  ~ConstantBuffer();
  ConstantBuffer(const ConstantBuffer&) = delete;
  ConstantBuffer& operator=(const ConstantBuffer&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  Origin origin() const { return origin_; }

  static std::shared_ptr<const ConstantBuffer> owned(std::vector<uint8_t> bytes);
  // Heap memory for `n` wide numbers, filled by `fill` before anyone can see it.
  static std::shared_ptr<const ConstantBuffer> owned_wide(size_t n, const std::function<void(WideNum*)>& fill);
  // Maps a whole file read-only (MAP_PRIVATE). Throws std::runtime_error on failure.
  static std::shared_ptr<const ConstantBuffer> map_file(const std::filesystem::path& file);
  // Bytes [offset, offset+size) of `parent`, sharing its memory. For a mapped
  // file, the pages wholly inside the slice are returned to the kernel
  // (madvise DONTNEED) when the slice dies, so a dead initializer stops counting
  // toward resident memory even though the mapping lives on.
  static std::shared_ptr<const ConstantBuffer> slice(const std::shared_ptr<const ConstantBuffer>& parent,
                                                     size_t offset, size_t size, Origin origin);

 private:
  const uint8_t* data_;
  size_t size_;
  Origin origin_;
  std::shared_ptr<const void> owner_;
  std::function<void()> on_release_;
};
using ConstantBufferPtr = std::shared_ptr<const ConstantBuffer>;

// A lazy element-wise step. `fn(dst, count, first)` rewrites `count` wide numbers in
// place; `first` is the row-major index of dst[0] in the constant (only positional
// transforms, i.e. binary with a broadcast operand, look at it).
struct ConstantTransform {
  std::function<void(WideNum* dst, int64_t count, int64_t first)> fn;
  WideKind to;              // kind of the numbers after this step
  bool positional = false;  // depends on the element position: views must materialize first
  std::string what;         // "cast", "neg", "mul-splat", ... (debugging, reports)
};
using ConstantTransformPtr = std::shared_ptr<const ConstantTransform>;

class Constant {
 public:
  // Dense row-major bytes in `dtype` (kept for existing callers).
  Constant(DType dtype, std::vector<int64_t> shape, std::shared_ptr<const std::vector<uint8_t>> bytes);
  // General form: `buffer` holds elements of `buffer_dtype` starting at element
  // `offset`, addressed with `strides` (in elements, may be 0 or negative), read
  // through `transforms`. Checks that every addressed element lies in the buffer.
  Constant(DType dtype, std::vector<int64_t> shape, ConstantBufferPtr buffer, DType buffer_dtype, int64_t offset,
           std::vector<int64_t> strides, std::vector<ConstantTransformPtr> transforms = {});

  // ---- builders -------------------------------------------------------------
  static ConstantPtr from_bytes(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes);
  static ConstantPtr from_floats(std::vector<int64_t> shape, const std::vector<float>& v);
  static ConstantPtr from_int64s(std::vector<int64_t> shape, const std::vector<int64_t>& v);
  // Converts every element (given in double) to `dtype`, rounding now.
  static ConstantPtr from_doubles(DType dtype, std::vector<int64_t> shape, const std::vector<double>& v);
  // Dense row-major `dtype` elements inside a shared buffer (model data, mapping).
  static ConstantPtr from_buffer(DType dtype, std::vector<int64_t> shape, ConstantBufferPtr buffer,
                                 size_t byte_offset = 0);
  // A folding result: `fill` writes num_elements wide numbers of wide_kind(dtype).
  // Floats are kept as double (rounded at emission), integers are wrapped now.
  static ConstantPtr from_wide(DType dtype, std::vector<int64_t> shape, const std::function<void(WideNum*)>& fill);
  static ConstantPtr from_wide(DType dtype, std::vector<int64_t> shape, const std::vector<WideNum>& values);
  // Every element equal to `v` (wide_kind(dtype)); 8 bytes of storage.
  static ConstantPtr splat(DType dtype, std::vector<int64_t> shape, WideNum v);

  // ---- what it is -----------------------------------------------------------
  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t num_elements() const { return num_elements_; }
  // Bytes of the dense `dtype` array this constant is emitted as.
  size_t size_bytes() const { return size_t(num_elements_) * dtype_size(dtype_); }
  // True when all elements are the same (every stride is 0, or one element).
  bool is_splat() const;
  // True when data() is the storage itself: dense row-major `dtype`, no transform.
  bool is_plain() const;
  bool has_transforms() const { return !transforms_.empty(); }
  bool has_positional_transform() const;
  const ConstantBufferPtr& buffer() const { return buffer_; }
  DType buffer_dtype() const { return buffer_dtype_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  const std::vector<ConstantTransformPtr>& transforms() const { return transforms_; }

  // ---- exact (emitted) values ---------------------------------------------
  // Dense row-major bytes in `dtype`, rounded. Zero-copy when is_plain(); else the
  // rounded array is computed once and cached with the constant.
  const uint8_t* data() const;
  // Writes the size_bytes() rounded bytes to `dst` without caching them.
  void write_bytes(uint8_t* dst) const;
  // Element `i` (row-major) rounded to dtype, then widened to double / int64.
  double as_double(int64_t i) const;
  int64_t as_int64(int64_t i) const;
  std::vector<int64_t> to_int64s() const;
  std::vector<double> to_doubles() const;

  // ---- folding precision ---------------------------------------------------
  WideKind kind() const { return wide_kind(dtype_); }
  // Elements [first, first+count) in row-major order, unrounded, kind(). Reads
  // whole runs per call and applies transforms over the block.
  void read_wide(int64_t first, int64_t count, WideNum* dst) const;
  std::vector<WideNum> wide() const;
  WideNum wide_at(int64_t i) const;

  // ---- views (no copy; a constant with a positional transform is materialized first)
  ConstantPtr transposed(const std::vector<int64_t>& perm) const;
  // Numpy broadcasting of this constant to `shape` (must be compatible).
  ConstantPtr broadcast_to(const std::vector<int64_t>& shape) const;
  // Same elements, new shape. A view when the strides allow it, else a copy.
  ConstantPtr reshaped(const std::vector<int64_t>& shape) const;
  // Per axis: start index, step (non-zero, may be negative), element count.
  ConstantPtr sliced(const std::vector<int64_t>& starts, const std::vector<int64_t>& steps,
                     const std::vector<int64_t>& counts) const;

  // ---- lazy transforms -------------------------------------------------------
  // Appends a position-independent step producing `out_dtype` (kinds must match fn).
  ConstantPtr mapped(DType out_dtype, std::function<void(WideNum*, int64_t)> fn, const std::string& what) const;
  // Cast with ONNX semantics, lazily.
  ConstantPtr cast_to(DType out_dtype) const;
  // out[i] = f(this[i], other[i]) with `other` broadcast to this shape, lazily
  // (other is read block by block on access). Meant for a small or splat `other`.
  ConstantPtr combined(const ConstantPtr& other, DType out_dtype,
                       std::function<void(WideNum*, const WideNum*, int64_t)> f, const std::string& what) const;
  // Dense copy in wide storage (drops views and transforms).
  ConstantPtr materialized() const;

 private:
  void cache_dense() const;
  WideNum emitted_at(int64_t i) const;  // element i rounded to dtype

  DType dtype_;
  std::vector<int64_t> shape_;
  int64_t num_elements_ = 1;
  ConstantBufferPtr buffer_;
  DType buffer_dtype_;
  int64_t offset_ = 0;
  std::vector<int64_t> strides_;
  std::vector<ConstantTransformPtr> transforms_;
  mutable std::once_flag dense_once_;
  mutable ConstantBufferPtr dense_;  // cached rounded bytes when not plain
};

// Row-major strides of a dense array of `shape` (in elements).
std::vector<int64_t> dense_strides(const std::vector<int64_t>& shape);

// float16 / bfloat16 <-> float conversions (round to nearest even).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bfloat16_to_float(uint16_t h);
uint16_t float_to_bfloat16(float f);
// Rounds a double straight to float16 / bfloat16 bits (one rounding, not two).
uint16_t double_to_half(double d);
uint16_t double_to_bfloat16(double d);

}  // namespace kiln
