#include "ir/constant.h"
#include "ir/wide_num.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "util/checked_math.h"
#include "util/quoted.h"

namespace kiln {

namespace {

// Elements read per block when a whole constant is rounded into bytes: big enough
// to amortize the per-block transform calls, small enough to stay in cache.
constexpr int64_t kBlock = 8192;

int64_t product(const std::vector<int64_t>& s) { return checked_elements(s, "constant"); }

template <typename T>
T load(const uint8_t* p, int64_t i) {
  T v;
  std::memcpy(&v, p + i * int64_t(sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
void store(uint8_t* p, int64_t i, T v) {
  std::memcpy(p + i * int64_t(sizeof(T)), &v, sizeof(T));
}

// Reads `n` elements of T, `stride` elements apart, widening them.
template <typename T, typename Widen>
void read_run(const uint8_t* base, int64_t at, int64_t stride, int64_t n, WideNum* dst, Widen widen) {
  if (stride == 1) {
    const uint8_t* p = base + at * int64_t(sizeof(T));
    for (int64_t k = 0; k < n; ++k) dst[k] = widen(load<T>(p, k));
  } else {
    for (int64_t k = 0; k < n; ++k) dst[k] = widen(load<T>(base, at + k * stride));
  }
}


void read_run_any(DType t, const uint8_t* base, int64_t at, int64_t stride, int64_t n, WideNum* dst) {
  switch (t) {
    case DType::Float32: return read_run<float>(base, at, stride, n, dst, [](float x) { return wide_float(x); });
    case DType::Float64: return read_run<double>(base, at, stride, n, dst, [](double x) { return wide_float(x); });
    case DType::Float16:
      return read_run<uint16_t>(base, at, stride, n, dst, [](uint16_t x) { return wide_float(half_to_float(x)); });
    case DType::BFloat16:
      return read_run<uint16_t>(base, at, stride, n, dst, [](uint16_t x) { return wide_float(bfloat16_to_float(x)); });
    case DType::Int8: return read_run<int8_t>(base, at, stride, n, dst, [](int8_t x) { return wide_int(x); });
    case DType::Int16: return read_run<int16_t>(base, at, stride, n, dst, [](int16_t x) { return wide_int(x); });
    case DType::Int32: return read_run<int32_t>(base, at, stride, n, dst, [](int32_t x) { return wide_int(x); });
    case DType::Int64: return read_run<int64_t>(base, at, stride, n, dst, [](int64_t x) { return wide_int(x); });
    case DType::Bool: return read_run<uint8_t>(base, at, stride, n, dst, [](uint8_t x) { return wide_int(x != 0); });
    case DType::UInt8: return read_run<uint8_t>(base, at, stride, n, dst, [](uint8_t x) { return wide_uint(x); });
    case DType::UInt16: return read_run<uint16_t>(base, at, stride, n, dst, [](uint16_t x) { return wide_uint(x); });
    case DType::UInt32: return read_run<uint32_t>(base, at, stride, n, dst, [](uint32_t x) { return wide_uint(x); });
    case DType::UInt64: return read_run<uint64_t>(base, at, stride, n, dst, [](uint64_t x) { return wide_uint(x); });
    default: throw std::logic_error("Constant: cannot read elements of dtype " + dtype_name(t));
  }
}

// Stores `n` wide numbers rounded to `t` (integers wrap: C++20 conversions are modular).
void store_rounded(DType t, const WideNum* src, int64_t n, uint8_t* dst) {
  switch (t) {
    case DType::Float32: for (int64_t k = 0; k < n; ++k) store<float>(dst, k, float(src[k].f)); break;
    case DType::Float64: for (int64_t k = 0; k < n; ++k) store<double>(dst, k, src[k].f); break;
    case DType::Float16: for (int64_t k = 0; k < n; ++k) store<uint16_t>(dst, k, double_to_half(src[k].f)); break;
    case DType::BFloat16: for (int64_t k = 0; k < n; ++k) store<uint16_t>(dst, k, double_to_bfloat16(src[k].f)); break;
    case DType::Int8: for (int64_t k = 0; k < n; ++k) store<int8_t>(dst, k, int8_t(src[k].i)); break;
    case DType::Int16: for (int64_t k = 0; k < n; ++k) store<int16_t>(dst, k, int16_t(src[k].i)); break;
    case DType::Int32: for (int64_t k = 0; k < n; ++k) store<int32_t>(dst, k, int32_t(src[k].i)); break;
    case DType::Int64: for (int64_t k = 0; k < n; ++k) store<int64_t>(dst, k, src[k].i); break;
    case DType::Bool: for (int64_t k = 0; k < n; ++k) store<uint8_t>(dst, k, src[k].i != 0 ? 1 : 0); break;
    case DType::UInt8: for (int64_t k = 0; k < n; ++k) store<uint8_t>(dst, k, uint8_t(src[k].u)); break;
    case DType::UInt16: for (int64_t k = 0; k < n; ++k) store<uint16_t>(dst, k, uint16_t(src[k].u)); break;
    case DType::UInt32: for (int64_t k = 0; k < n; ++k) store<uint32_t>(dst, k, uint32_t(src[k].u)); break;
    case DType::UInt64: for (int64_t k = 0; k < n; ++k) store<uint64_t>(dst, k, src[k].u); break;
    default: throw std::logic_error("Constant: cannot store elements of dtype " + dtype_name(t));
  }
}

// Rounds |a| (finite, >= 0) to a binary format with `p` significand bits whose
// smallest subnormal step is 2^min_q. Exact: scaling by powers of two is exact and
// nearbyint rounds to nearest even.
double round_binary(double a, int p, int min_q) {
  if (a == 0.0) return 0.0;
  int e;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  int q = std::max(e - p, min_q);
  return std::ldexp(std::nearbyint(std::ldexp(a, -q)), q);
}

struct Mapping {
  void* addr = nullptr;
  size_t len = 0;
  ~Mapping() {
    if (addr) munmap(addr, len);
  }
};

}  // namespace

// ---------------------------------------------------------------------------
// wide numbers

WideKind wide_kind(DType t) {
  switch (t) {
    case DType::Float16: case DType::BFloat16: case DType::Float32: case DType::Float64: return WideKind::Float;
    case DType::UInt8: case DType::UInt16: case DType::UInt32: case DType::UInt64: return WideKind::UInt;
    default: return WideKind::Int;
  }
}

DType wide_storage_dtype(DType t) { return wide_kind(t) == WideKind::Float ? DType::Float64 : t; }

WideNum round_to(DType t, WideNum v) {
  switch (t) {
    case DType::Float32: return wide_float(double(float(v.f)));
    case DType::Float64: return v;
    case DType::Float16: return wide_float(half_to_float(double_to_half(v.f)));
    case DType::BFloat16: return wide_float(bfloat16_to_float(double_to_bfloat16(v.f)));
    case DType::Int8: return wide_int(int8_t(v.i));
    case DType::Int16: return wide_int(int16_t(v.i));
    case DType::Int32: return wide_int(int32_t(v.i));
    case DType::Int64: return v;
    case DType::Bool: return wide_int(v.i != 0);
    case DType::UInt8: return wide_uint(uint8_t(v.u));
    case DType::UInt16: return wide_uint(uint16_t(v.u));
    case DType::UInt32: return wide_uint(uint32_t(v.u));
    case DType::UInt64: return v;
    default: throw std::logic_error("round_to: unsupported dtype " + dtype_name(t));
  }
}

WideNum convert_kind(WideKind from, WideKind to, WideNum v) {
  if (from == to) return v;
  // Float -> integer: truncate toward zero. Out-of-range and NaN are undefined in
  // ONNX (and in C); 0 keeps the host free of UB.
  auto trunc_to_i = [](double x) -> int64_t {
    if (!(x > -9.2233720368547758e18 && x < 9.2233720368547758e18)) return 0;
    return int64_t(std::trunc(x));
  };
  switch (from) {
    case WideKind::Float:
      if (to == WideKind::Int) return wide_int(trunc_to_i(v.f));
      if (v.f >= 0 && v.f < 1.8446744073709552e19) return wide_uint(uint64_t(std::trunc(v.f)));
      return wide_uint(uint64_t(trunc_to_i(v.f)));
    case WideKind::Int: return to == WideKind::Float ? wide_float(double(v.i)) : wide_uint(uint64_t(v.i));
    case WideKind::UInt: return to == WideKind::Float ? wide_float(double(v.u)) : wide_int(int64_t(v.u));
  }
  return v;
}

// ---------------------------------------------------------------------------
// ConstantBuffer

ConstantBuffer::ConstantBuffer(const uint8_t* data, size_t size, Origin origin, std::shared_ptr<const void> owner,
                               std::function<void()> on_release)
    : data_(data), size_(size), origin_(origin), owner_(std::move(owner)), on_release_(std::move(on_release)) {}

ConstantBuffer::~ConstantBuffer() {
  if (on_release_) on_release_();
}

ConstantBufferPtr ConstantBuffer::owned(std::vector<uint8_t> bytes) {
  auto v = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  return std::make_shared<const ConstantBuffer>(v->data(), v->size(), Origin::Owned, v);
}

ConstantBufferPtr ConstantBuffer::owned_wide(size_t n, const std::function<void(WideNum*)>& fill) {
  std::shared_ptr<WideNum[]> mem(new WideNum[std::max<size_t>(n, 1)]);
  fill(mem.get());
  const auto* p = reinterpret_cast<const uint8_t*>(mem.get());
  return std::make_shared<const ConstantBuffer>(p, n * sizeof(WideNum), Origin::Owned, std::shared_ptr<const void>(mem, mem.get()));
}

ConstantBufferPtr ConstantBuffer::map_file(const std::filesystem::path& file) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; only regular files are
  // mapped (a FIFO or a device named by a model would hang or never end).
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw std::runtime_error("cannot open " + in_quotes(file.string()));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot stat " + in_quotes(file.string()));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(in_quotes(file.string()) + " is not a regular file");
  }
  auto m = std::make_shared<Mapping>();
  m->len = size_t(st.st_size);
  if (m->len > 0) {
    void* a = mmap(nullptr, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (a == MAP_FAILED) {
      ::close(fd);
      throw std::runtime_error("cannot map " + in_quotes(file.string()));
    }
    m->addr = a;
  }
  ::close(fd);  // the mapping stays valid without the descriptor
  static const uint8_t empty = 0;
  const uint8_t* p = m->addr ? static_cast<const uint8_t*>(m->addr) : &empty;
  return std::make_shared<const ConstantBuffer>(p, m->len, Origin::MappedFile, m);
}

ConstantBufferPtr ConstantBuffer::slice(const ConstantBufferPtr& parent, size_t offset, size_t size, Origin origin) {
  if (offset > parent->size() || size > parent->size() - offset)
    throw std::out_of_range("ConstantBuffer::slice: [" + std::to_string(offset) + ", +" + std::to_string(size) +
                            ") is outside a buffer of " + std::to_string(parent->size()) + " bytes");
  const uint8_t* p = parent->data() + offset;
  std::function<void()> release;
  if (parent->origin() == Origin::MappedFile) {
    // Give the pages wholly inside this slice back when it dies: the file is
    // read-only and privately mapped, so a later access would just fault them in
    // again from the file.
    static const size_t page = size_t(sysconf(_SC_PAGESIZE));
    uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
    uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + size) / page * page;
    if (hi > lo)
      release = [lo, hi]() { madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED); };
  }
  auto s = std::make_shared<const ConstantBuffer>(p, size, origin, parent, std::move(release));
  return s;
}

// ---------------------------------------------------------------------------
// Constant

std::vector<int64_t> dense_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

Constant::Constant(DType dtype, std::vector<int64_t> shape, std::shared_ptr<const std::vector<uint8_t>> bytes)
    : Constant(dtype, shape,
               std::make_shared<const ConstantBuffer>(bytes->data(), bytes->size(), ConstantBuffer::Origin::Owned, bytes),
               dtype, 0, dense_strides(shape)) {
  if (bytes->size() != size_t(product(shape_)) * dtype_size(dtype_))
    throw std::logic_error("Constant: byte size does not match shape and dtype");
}

Constant::Constant(DType dtype, std::vector<int64_t> shape, ConstantBufferPtr buffer, DType buffer_dtype, int64_t offset,
                   std::vector<int64_t> strides, std::vector<ConstantTransformPtr> transforms)
    : dtype_(dtype),
      shape_(std::move(shape)),
      num_elements_(product(shape_)),
      buffer_(std::move(buffer)),
      buffer_dtype_(buffer_dtype),
      offset_(offset),
      strides_(std::move(strides)),
      transforms_(std::move(transforms)) {
  if (dtype_size(dtype_) == 0 || dtype_size(buffer_dtype_) == 0)
    throw std::logic_error("Constant: unsupported dtype " + dtype_name(dtype_size(dtype_) ? buffer_dtype_ : dtype_));
  if (strides_.size() != shape_.size()) throw std::logic_error("Constant: strides and shape differ in rank");
  for (auto d : shape_)
    if (d < 0) throw std::logic_error("Constant: negative dimension");
  WideKind k = wide_kind(buffer_dtype_);
  for (const auto& t : transforms_) k = t->to;
  if (k != wide_kind(dtype_)) throw std::logic_error("Constant: transforms do not produce " + dtype_name(dtype_));
  if (num_elements_ > 0) {
    int64_t lo = offset_, hi = offset_;
    for (size_t d = 0; d < shape_.size(); ++d) {
      int64_t span = checked_mul(strides_[d], shape_[d] - 1, "constant view");
      int64_t& end = span < 0 ? lo : hi;
      end = checked_add(end, span, "constant view");
    }
    int64_t avail = int64_t(buffer_->size() / dtype_size(buffer_dtype_));
    if (lo < 0 || hi >= avail) throw std::logic_error("Constant: view reaches outside its buffer");
  }
}

ConstantPtr Constant::from_bytes(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes) {
  if (bytes.size() != size_t(product(shape)) * dtype_size(dtype))
    throw std::logic_error("Constant: byte size does not match shape and dtype");
  return from_buffer(dtype, std::move(shape), ConstantBuffer::owned(std::move(bytes)));
}

ConstantPtr Constant::from_buffer(DType dtype, std::vector<int64_t> shape, ConstantBufferPtr buffer, size_t byte_offset) {
  size_t es = dtype_size(dtype);
  if (es == 0) throw std::logic_error("Constant: unsupported dtype " + dtype_name(dtype));
  if (byte_offset % es != 0) {
    // Elements must be addressable by index: move the bytes into a buffer of their own.
    size_t n = size_t(product(shape)) * es;
    if (byte_offset + n > buffer->size()) throw std::logic_error("Constant::from_buffer: outside the buffer");
    std::vector<uint8_t> b(buffer->data() + byte_offset, buffer->data() + byte_offset + n);
    return from_bytes(dtype, std::move(shape), std::move(b));
  }
  auto strides = dense_strides(shape);
  return std::make_shared<const Constant>(dtype, std::move(shape), std::move(buffer), dtype, int64_t(byte_offset / es),
                                          std::move(strides));
}

ConstantPtr Constant::from_floats(std::vector<int64_t> shape, const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return from_bytes(DType::Float32, std::move(shape), std::move(b));
}

ConstantPtr Constant::from_int64s(std::vector<int64_t> shape, const std::vector<int64_t>& v) {
  std::vector<uint8_t> b(v.size() * 8);
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return from_bytes(DType::Int64, std::move(shape), std::move(b));
}

ConstantPtr Constant::from_doubles(DType dtype, std::vector<int64_t> shape, const std::vector<double>& v) {
  std::vector<uint8_t> b(v.size() * dtype_size(dtype));
  std::vector<WideNum> w(v.size());
  WideKind k = wide_kind(dtype);
  for (size_t i = 0; i < v.size(); ++i) w[i] = convert_kind(WideKind::Float, k, wide_float(v[i]));
  if (dtype == DType::Bool)
    for (size_t i = 0; i < v.size(); ++i) w[i] = wide_int(v[i] != 0.0);
  store_rounded(dtype, w.data(), int64_t(w.size()), b.data());
  return from_bytes(dtype, std::move(shape), std::move(b));
}

ConstantPtr Constant::from_wide(DType dtype, std::vector<int64_t> shape, const std::function<void(WideNum*)>& fill) {
  size_t n = size_t(product(shape));
  DType st = wide_storage_dtype(dtype);
  ConstantBufferPtr buf;
  if (dtype_size(st) == 8) {
    buf = ConstantBuffer::owned_wide(n, fill);
    if (wide_kind(dtype) != WideKind::Float && st != DType::Int64 && st != DType::UInt64)
      throw std::logic_error("from_wide: unexpected storage");
  } else {
    std::vector<WideNum> tmp(n);
    fill(tmp.data());
    std::vector<uint8_t> b(n * dtype_size(st));
    store_rounded(st, tmp.data(), int64_t(n), b.data());
    buf = ConstantBuffer::owned(std::move(b));
  }
  auto strides = dense_strides(shape);
  return std::make_shared<const Constant>(dtype, std::move(shape), std::move(buf), st, 0, std::move(strides));
}

ConstantPtr Constant::from_wide(DType dtype, std::vector<int64_t> shape, const std::vector<WideNum>& values) {
  if (values.size() != size_t(product(shape))) throw std::logic_error("from_wide: element count does not match shape");
  return from_wide(dtype, std::move(shape), [&](WideNum* d) { std::copy(values.begin(), values.end(), d); });
}

ConstantPtr Constant::splat(DType dtype, std::vector<int64_t> shape, WideNum v) {
  return from_wide(dtype, {}, [v](WideNum* d) { d[0] = v; })->broadcast_to(shape);
}

bool Constant::is_splat() const {
  if (num_elements_ <= 1) return true;
  if (has_positional_transform()) return false;
  for (size_t d = 0; d < shape_.size(); ++d)
    if (shape_[d] > 1 && strides_[d] != 0) return false;
  return true;
}

bool Constant::is_plain() const {
  if (!transforms_.empty() || buffer_dtype_ != dtype_) return false;
  auto ds = dense_strides(shape_);
  for (size_t d = 0; d < shape_.size(); ++d)
    if (shape_[d] > 1 && strides_[d] != ds[d]) return false;
  return true;
}

bool Constant::has_positional_transform() const {
  for (const auto& t : transforms_)
    if (t->positional) return true;
  return false;
}

void Constant::read_wide(int64_t first, int64_t count, WideNum* dst) const {
  if (count <= 0) return;
  if (first < 0 || first + count > num_elements_) throw std::out_of_range("Constant::read_wide: range outside the constant");
  // Merge dimensions that are contiguous in the buffer so runs are as long as possible.
  std::vector<int64_t> dims, strides;
  for (size_t d = 0; d < shape_.size(); ++d) {
    if (shape_[d] == 1) continue;
    if (!dims.empty() && strides.back() == strides_[d] * shape_[d]) {
      dims.back() *= shape_[d];
      strides.back() = strides_[d];
    } else {
      dims.push_back(shape_[d]);
      strides.push_back(strides_[d]);
    }
  }
  const uint8_t* base = buffer_->data();
  if (dims.empty()) {
    read_run_any(buffer_dtype_, base, offset_, 0, 1, dst);
    for (int64_t k = 1; k < count; ++k) dst[k] = dst[0];
  } else {
    size_t r = dims.size();
    std::vector<int64_t> idx(r);
    int64_t rem = first, at = offset_;
    for (size_t d = r; d-- > 0;) {
      idx[d] = rem % dims[d];
      rem /= dims[d];
      at += idx[d] * strides[d];
    }
    int64_t done = 0;
    while (done < count) {
      int64_t run = std::min(count - done, dims[r - 1] - idx[r - 1]);
      if (strides[r - 1] == 0) {
        read_run_any(buffer_dtype_, base, at, 0, 1, dst + done);
        std::fill(dst + done + 1, dst + done + run, dst[done]);
      } else {
        read_run_any(buffer_dtype_, base, at, strides[r - 1], run, dst + done);
      }
      done += run;
      at += run * strides[r - 1];
      idx[r - 1] += run;
      for (size_t d = r - 1; d > 0 && idx[d] == dims[d]; --d) {
        at -= dims[d] * strides[d];
        idx[d] = 0;
        ++idx[d - 1];
        at += strides[d - 1];
      }
    }
  }
  for (const auto& t : transforms_) t->fn(dst, count, first);
}

std::vector<WideNum> Constant::wide() const {
  std::vector<WideNum> v(static_cast<size_t>(num_elements_));
  read_wide(0, num_elements_, v.data());
  return v;
}

WideNum Constant::wide_at(int64_t i) const {
  WideNum w;
  read_wide(i, 1, &w);
  return w;
}

void Constant::write_bytes(uint8_t* dst) const {
  if (is_plain()) {
    if (size_bytes()) std::memcpy(dst, buffer_->data() + offset_ * int64_t(dtype_size(dtype_)), size_bytes());
    return;
  }
  std::vector<WideNum> block(size_t(std::min(num_elements_, kBlock)));
  size_t es = dtype_size(dtype_);
  for (int64_t first = 0; first < num_elements_; first += kBlock) {
    int64_t n = std::min(kBlock, num_elements_ - first);
    read_wide(first, n, block.data());
    store_rounded(dtype_, block.data(), n, dst + size_t(first) * es);
  }
}

void Constant::cache_dense() const {
  std::call_once(dense_once_, [this]() {
    std::vector<uint8_t> b(size_bytes());
    write_bytes(b.data());
    dense_ = ConstantBuffer::owned(std::move(b));
  });
}

const uint8_t* Constant::data() const {
  if (is_plain()) return buffer_->data() + offset_ * int64_t(dtype_size(dtype_));
  cache_dense();
  return dense_->data();
}

// Per-element access reads the emitted (rounded) bytes: a lazy or strided constant
// is rounded into its dense cache once instead of re-running its transforms for
// every element a caller asks for.
namespace {
WideNum load_emitted(DType t, const uint8_t* p, int64_t i) {
  WideNum w;
  read_run_any(t, p, i, 0, 1, &w);
  return w;
}
}  // namespace

WideNum Constant::emitted_at(int64_t i) const {
  if (i < 0 || i >= num_elements_) throw std::out_of_range("Constant: element index out of range");
  // A splat is read through its 8 bytes, never expanded.
  if (is_splat() && !is_plain()) return round_to(dtype_, wide_at(0));
  return load_emitted(dtype_, data(), i);
}

double Constant::as_double(int64_t i) const {
  WideNum w = emitted_at(i);
  switch (kind()) {
    case WideKind::Float: return w.f;
    case WideKind::Int: return double(w.i);
    case WideKind::UInt: return double(w.u);
  }
  return 0;
}

int64_t Constant::as_int64(int64_t i) const {
  WideNum w = emitted_at(i);
  switch (kind()) {
    case WideKind::Float: return convert_kind(WideKind::Float, WideKind::Int, w).i;
    case WideKind::Int: return w.i;
    case WideKind::UInt: return int64_t(w.u);
  }
  return 0;
}

std::vector<int64_t> Constant::to_int64s() const {
  auto w = wide();
  std::vector<int64_t> r(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    WideNum x = round_to(dtype_, w[i]);
    r[i] = kind() == WideKind::Float ? convert_kind(WideKind::Float, WideKind::Int, x).i
                                     : (kind() == WideKind::Int ? x.i : int64_t(x.u));
  }
  return r;
}

std::vector<double> Constant::to_doubles() const {
  auto w = wide();
  std::vector<double> r(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    WideNum x = round_to(dtype_, w[i]);
    r[i] = kind() == WideKind::Float ? x.f : (kind() == WideKind::Int ? double(x.i) : double(x.u));
  }
  return r;
}

// ---- views ----------------------------------------------------------------

ConstantPtr Constant::materialized() const {
  return from_wide(dtype_, shape_, [this](WideNum* d) { read_wide(0, num_elements_, d); });
}

ConstantPtr Constant::transposed(const std::vector<int64_t>& perm) const {
  if (has_positional_transform()) return materialized()->transposed(perm);
  if (perm.size() != shape_.size()) throw std::logic_error("Constant::transposed: perm rank mismatch");
  std::vector<int64_t> s(perm.size()), st(perm.size());
  std::vector<bool> seen(perm.size(), false);
  for (size_t d = 0; d < perm.size(); ++d) {
    int64_t p = perm[d];
    if (p < 0 || size_t(p) >= perm.size() || seen[size_t(p)]) throw std::logic_error("Constant::transposed: bad perm");
    seen[size_t(p)] = true;
    s[d] = shape_[size_t(p)];
    st[d] = strides_[size_t(p)];
  }
  return std::make_shared<const Constant>(dtype_, s, buffer_, buffer_dtype_, offset_, st, transforms_);
}

ConstantPtr Constant::broadcast_to(const std::vector<int64_t>& shape) const {
  if (has_positional_transform()) return materialized()->broadcast_to(shape);
  if (shape.size() < shape_.size()) throw std::logic_error("Constant::broadcast_to: target has a lower rank");
  size_t lead = shape.size() - shape_.size();
  std::vector<int64_t> st(shape.size(), 0);
  for (size_t d = 0; d < shape_.size(); ++d) {
    int64_t from = shape_[d], to = shape[lead + d];
    if (from == to) st[lead + d] = strides_[d];
    else if (from == 1) st[lead + d] = 0;
    else throw std::logic_error("Constant::broadcast_to: cannot broadcast dimension " + std::to_string(from) + " to " +
                                std::to_string(to));
  }
  return std::make_shared<const Constant>(dtype_, shape, buffer_, buffer_dtype_, offset_, st, transforms_);
}

ConstantPtr Constant::reshaped(const std::vector<int64_t>& shape) const {
  if (product(shape) != num_elements_) throw std::logic_error("Constant::reshaped: element count differs");
  if (has_positional_transform()) return materialized()->reshaped(shape);
  if (num_elements_ == 0)
    return std::make_shared<const Constant>(dtype_, shape, buffer_, buffer_dtype_, offset_, dense_strides(shape), transforms_);
  // numpy's no-copy reshape: split/merge blocks of old dimensions whose strides are
  // contiguous with each other; give up (copy) when a merged block is not.
  std::vector<int64_t> od, os;
  for (size_t d = 0; d < shape_.size(); ++d)
    if (shape_[d] != 1) od.push_back(shape_[d]), os.push_back(strides_[d]);
  std::vector<int64_t> nd, nmap;  // non-1 new dims and their positions
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1) nd.push_back(shape[d]), nmap.push_back(int64_t(d));
  std::vector<int64_t> ns(nd.size(), 0);
  size_t oi = 0, oj = 1, ni = 0, nj = 1;
  bool ok = true;
  while (ni < nd.size() && oi < od.size()) {
    int64_t np = nd[ni], op = od[oi];
    while (np != op) {
      if (np < op) np *= nd[nj++];
      else op *= od[oj++];
    }
    for (size_t k = oi; k + 1 < oj; ++k)
      if (os[k] != od[k + 1] * os[k + 1]) ok = false;
    if (!ok) break;
    ns[nj - 1] = os[oj - 1];
    for (size_t k = nj - 1; k > ni; --k) ns[k - 1] = ns[k] * nd[k];
    ni = nj++;
    oi = oj++;
  }
  if (!ok) return materialized()->reshaped(shape);
  std::vector<int64_t> st(shape.size(), 0);
  for (size_t k = 0; k < nd.size(); ++k) st[size_t(nmap[k])] = ns[k];
  return std::make_shared<const Constant>(dtype_, shape, buffer_, buffer_dtype_, offset_, st, transforms_);
}

ConstantPtr Constant::sliced(const std::vector<int64_t>& starts, const std::vector<int64_t>& steps,
                             const std::vector<int64_t>& counts) const {
  if (has_positional_transform()) return materialized()->sliced(starts, steps, counts);
  size_t r = shape_.size();
  if (starts.size() != r || steps.size() != r || counts.size() != r)
    throw std::logic_error("Constant::sliced: rank mismatch");
  int64_t off = offset_;
  std::vector<int64_t> st(r);
  bool empty = false;
  for (size_t d = 0; d < r; ++d) empty |= counts[d] == 0;
  for (size_t d = 0; d < r; ++d) {
    if (!empty) {
      int64_t last = starts[d] + steps[d] * (counts[d] - 1);
      if (starts[d] < 0 || starts[d] >= shape_[d] || last < 0 || last >= shape_[d])
        throw std::logic_error("Constant::sliced: slice outside the constant");
      off += starts[d] * strides_[d];
    }
    st[d] = strides_[d] * steps[d];
  }
  return std::make_shared<const Constant>(dtype_, counts, buffer_, buffer_dtype_, empty ? offset_ : off, st, transforms_);
}

// ---- lazy transforms --------------------------------------------------------

ConstantPtr Constant::mapped(DType out_dtype, std::function<void(WideNum*, int64_t)> fn, const std::string& what) const {
  auto t = std::make_shared<ConstantTransform>();
  // Integers wrap to their dtype after every step, like the runtime's arithmetic.
  bool wrap = wide_kind(out_dtype) != WideKind::Float;
  t->fn = [fn = std::move(fn), wrap, out_dtype](WideNum* d, int64_t n, int64_t) {
    fn(d, n);
    if (wrap)
      for (int64_t k = 0; k < n; ++k) d[k] = round_to(out_dtype, d[k]);
  };
  t->to = wide_kind(out_dtype);
  t->what = what;
  auto ts = transforms_;
  ts.push_back(std::move(t));
  return std::make_shared<const Constant>(out_dtype, shape_, buffer_, buffer_dtype_, offset_, strides_, std::move(ts));
}

namespace {
WideNum saturate_to(DType t, double x) {
  if (std::isnan(x)) return wide_kind(t) == WideKind::UInt ? wide_uint(0) : wide_int(0);
  x = std::trunc(x);
  switch (t) {
    case DType::Int8: return wide_int(int64_t(std::clamp(x, -128.0, 127.0)));
    case DType::Int16: return wide_int(int64_t(std::clamp(x, -32768.0, 32767.0)));
    case DType::Int32: return wide_int(int64_t(std::clamp(x, -2147483648.0, 2147483647.0)));
    case DType::Int64: return wide_int(x >= 9.2233720368547758e18 ? INT64_MAX : x <= -9.2233720368547758e18 ? INT64_MIN : int64_t(x));
    case DType::UInt8: return wide_uint(uint64_t(std::clamp(x, 0.0, 255.0)));
    case DType::UInt16: return wide_uint(uint64_t(std::clamp(x, 0.0, 65535.0)));
    case DType::UInt32: return wide_uint(uint64_t(std::clamp(x, 0.0, 4294967295.0)));
    case DType::UInt64: return wide_uint(x >= 1.8446744073709552e19 ? UINT64_MAX : x <= 0 ? 0 : uint64_t(x));
    default: return wide_int(0);
  }
}
}  // namespace

ConstantPtr Constant::cast_to(DType out) const {
  WideKind from = kind(), to = wide_kind(out);
  // Integers wrap to the target width; a cast to a narrower float rounds now,
  // because that rounding is what the operator means (see docs/folding.md).
  bool narrow_float = to == WideKind::Float && out != DType::Float64;
  return mapped(
      out,
      [from, to, out, narrow_float](WideNum* d, int64_t n) {
        for (int64_t k = 0; k < n; ++k) {
          WideNum v = convert_kind(from, to, d[k]);
          // Float -> integer saturates (NaN -> 0), exactly like the crt Cast kernel.
          if (from == WideKind::Float && to != WideKind::Float && out != DType::Bool) v = saturate_to(out, d[k].f);
          if (out == DType::Bool) v = wide_int(from == WideKind::Float ? d[k].f != 0.0 : d[k].i != 0);
          if (to != WideKind::Float || narrow_float) v = round_to(out, v);
          d[k] = v;
        }
      },
      "cast-" + dtype_name(out));
}

ConstantPtr Constant::combined(const ConstantPtr& other, DType out_dtype,
                               std::function<void(WideNum*, const WideNum*, int64_t)> f, const std::string& what) const {
  ConstantPtr b = other->broadcast_to(shape_);
  auto t = std::make_shared<ConstantTransform>();
  bool wrap = wide_kind(out_dtype) != WideKind::Float;
  t->fn = [b, f = std::move(f), wrap, out_dtype](WideNum* d, int64_t n, int64_t first) {
    if (wrap) {
      std::vector<WideNum> tmp(size_t(std::min<int64_t>(n, kBlock)));
      for (int64_t k = 0; k < n; k += kBlock) {
        int64_t m = std::min(kBlock, n - k);
        b->read_wide(first + k, m, tmp.data());
        f(d + k, tmp.data(), m);
        for (int64_t i = 0; i < m; ++i) d[k + i] = round_to(out_dtype, d[k + i]);
      }
      return;
    }
    if (b->is_splat()) {
      WideNum v = b->wide_at(0);
      std::vector<WideNum> tmp(size_t(std::min<int64_t>(n, kBlock)), v);
      for (int64_t k = 0; k < n; k += kBlock) f(d + k, tmp.data(), std::min(kBlock, n - k));
      return;
    }
    std::vector<WideNum> tmp(size_t(std::min<int64_t>(n, kBlock)));
    for (int64_t k = 0; k < n; k += kBlock) {
      int64_t m = std::min(kBlock, n - k);
      b->read_wide(first + k, m, tmp.data());
      f(d + k, tmp.data(), m);
    }
  };
  t->to = wide_kind(out_dtype);
  t->positional = !other->is_splat();
  t->what = what;
  auto ts = transforms_;
  ts.push_back(std::move(t));
  return std::make_shared<const Constant>(out_dtype, shape_, buffer_, buffer_dtype_, offset_, strides_, std::move(ts));
}

// ---------------------------------------------------------------------------
// float16 / bfloat16

float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: value = mant * 2^-24
      float f = std::ldexp(float(mant), -24);
      return sign ? -f : f;
    }
  } else {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return uint16_t(sign | 0x7c00 | (absx > 0x7f800000u ? 0x200 : 0));  // inf/nan
  if (absx >= 0x477ff000u) return uint16_t(sign | 0x7c00);  // rounds to >= 65520: overflow to inf
  if (absx < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    float a;
    std::memcpy(&a, &absx, 4);
    float scaled = a * 16777216.0f;  // a / 2^-24, exact in float
    uint32_t m = uint32_t(std::nearbyint(scaled));  // round to nearest even (default mode)
    return uint16_t(sign | m);
  }
  uint32_t exp = (absx >> 23) - 112;
  uint32_t mant = absx & 0x7fffff;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;  // carries into exponent correctly
  return uint16_t(sign | h);
}

float bfloat16_to_float(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_bfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40);  // quiet NaN
  uint32_t lsb = (x >> 16) & 1;
  x += 0x7fff + lsb;
  return uint16_t(x >> 16);
}

uint16_t double_to_half(double d) {
  if (std::isnan(d)) return std::signbit(d) ? 0xfe00 : 0x7e00;
  double a = std::fabs(d);
  double r = std::isinf(a) ? a : round_binary(a, 11, -24);
  uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  if (r > 65504.0) return uint16_t(sign | 0x7c00);
  return uint16_t(sign | float_to_half(float(r)));  // r is exactly a half: no second rounding
}

uint16_t double_to_bfloat16(double d) {
  if (std::isnan(d)) return std::signbit(d) ? 0xffc0 : 0x7fc0;
  double a = std::fabs(d);
  double r = std::isinf(a) ? a : round_binary(a, 8, -133);
  uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  if (r >= 0x1p128) return uint16_t(sign | 0x7f80);
  return uint16_t(sign | float_to_bfloat16(float(r)));
}

}  // namespace kiln
