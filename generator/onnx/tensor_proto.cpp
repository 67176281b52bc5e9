#include "onnx/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/checked_math.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

// External data is memory-mapped and sliced, never copied (ir/constant.h).
ConstantBufferPtr read_external(const onnx::TensorProto& t, const fs::path& base_dir, size_t expected,
                                const std::string& what) {
  // 'offset' and 'length' are decimal strings in the model; anything else is the
  // model's error, named here rather than surfacing as std::invalid_argument.
  auto parse_count = [&](const std::string& key, const std::string& text) {
    int64_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || p != end || v < 0)
      throw CompileError(what + ": external data " + in_quotes(key) + " is " + in_quotes(text) + ", not a non-negative integer");
    return v;
  };
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset = parse_count("offset", kv.value());
    else if (kv.key() == "length") length = parse_count("length", kv.value());
  }
  if (location.empty()) throw CompileError(what + ": external data has no 'location'");
  const fs::path file = resolve_external_location(location, base_dir, what);
  if (length >= 0 && size_t(length) != expected)
    throw CompileError(what + ": external data length " + std::to_string(length) + " does not match " +
                       std::to_string(expected) + " bytes implied by dtype and shape");
  ConstantBufferPtr map;
  try {
    map = ConstantBuffer::map_file(file);
  } catch (const std::exception& e) {
    throw CompileError(what + ": cannot read external data: " + e.what());
  }
  if (offset < 0 || size_t(offset) > map->size() || map->size() - size_t(offset) < expected)
    throw CompileError(what + ": external data file " + in_quotes(file.string()) + " is too short");
  return ConstantBuffer::slice(map, size_t(offset), expected, ConstantBuffer::Origin::MappedFile);
}

template <typename T, typename Field>
void pack(std::vector<uint8_t>& out, const Field& f) {
  for (int i = 0; i < f.size(); ++i) {
    T v = static_cast<T>(f.Get(i));
    std::memcpy(out.data() + size_t(i) * sizeof(T), &v, sizeof(T));
  }
}

}  // namespace

size_t typed_field_count(const onnx::TensorProto& t, DType dt) {
  switch (dt) {
    case DType::Float32: return size_t(t.float_data_size());
    case DType::Float64: return size_t(t.double_data_size());
    case DType::Int64: return size_t(t.int64_data_size());
    case DType::UInt32: case DType::UInt64: return size_t(t.uint64_data_size());
    case DType::Int32: case DType::Int16: case DType::UInt16: case DType::Float16: case DType::BFloat16:
    case DType::Int8: case DType::UInt8: case DType::Bool:
      return size_t(t.int32_data_size());
    default: return 0;
  }
}

fs::path resolve_external_location(const std::string& location, const fs::path& base_dir, const std::string& what) {
  const fs::path rel(location);
  if (location.empty() || rel.is_absolute() || location.find('\0') != std::string::npos)
    throw CompileError(what + ": external data location " + in_quotes(location) + " must be a relative path inside the model's folder");
  // Links are resolved before the containment check: a symlink in the model's
  // folder must not lead to /etc/passwd.
  std::error_code ec;
  const fs::path dir = fs::canonical(base_dir.empty() ? fs::path(".") : base_dir, ec);
  if (ec) throw CompileError(what + ": cannot resolve the model's folder " + in_quotes(base_dir.string()));
  const fs::path file = fs::canonical(dir / rel, ec);
  if (ec) throw CompileError(what + ": external data file " + in_quotes(location) + " does not exist in the model's folder");
  auto [d_end, f_it] = std::mismatch(dir.begin(), dir.end(), file.begin(), file.end());
  if (d_end != dir.end() || file == dir)
    throw CompileError(what + ": external data location " + in_quotes(location) + " resolves to " + in_quotes(file.string()) +
                       ", outside the model's folder");
  const auto st = fs::status(file, ec);
  if (ec || !fs::is_regular_file(st))
    throw CompileError(what + ": external data location " + in_quotes(location) + " is not a regular file");
  return file;
}

ConstantPtr constant_from_tensor_proto(const onnx::TensorProto& t, const fs::path& base_dir, const std::string& what) {
  if (!dtype_is_known(t.data_type()))
    throw CompileError(what + ": element type " + std::to_string(t.data_type()) +
                       (t.data_type() == onnx::TensorProto::STRING ? " (string)" : "") + " is not supported");
  DType dt = DType(t.data_type());
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  // Checked before anything is allocated: dims [2^32] must not become a 4 GB vector.
  const size_t esz = dtype_size(dt);
  const size_t expected = size_t(checked_tensor_bytes(shape, esz, what));
  const int64_t n = int64_t(expected / esz);
  if (t.has_data_location() && t.data_location() == onnx::TensorProto::EXTERNAL)
    return Constant::from_buffer(dt, std::move(shape), read_external(t, base_dir, expected, what));
  // The element count is checked before the bytes are allocated (a 1 GiB shape
  // with no data behind it asks for nothing).
  if (!t.has_raw_data() && typed_field_count(t, dt) != size_t(n))
    throw CompileError(what + ": holds " + std::to_string(typed_field_count(t, dt)) + " elements, its shape " +
                       "needs " + std::to_string(n));
  if (t.has_raw_data() && t.raw_data().size() != expected)
    throw CompileError(what + ": raw_data has " + std::to_string(t.raw_data().size()) + " bytes, expected " +
                       std::to_string(expected));
  std::vector<uint8_t> bytes(expected);
  if (t.has_raw_data()) {
    // An empty tensor's vector has no storage: memcpy from or to null is undefined
    // even for 0 bytes.
    if (expected > 0) std::memcpy(bytes.data(), t.raw_data().data(), expected);
  } else {
    size_t count = 0;
    switch (dt) {
      case DType::Float32: count = size_t(t.float_data_size()); if (count == size_t(n)) pack<float>(bytes, t.float_data()); break;
      case DType::Float64: count = size_t(t.double_data_size()); if (count == size_t(n)) pack<double>(bytes, t.double_data()); break;
      case DType::Int64: count = size_t(t.int64_data_size()); if (count == size_t(n)) pack<int64_t>(bytes, t.int64_data()); break;
      case DType::UInt32: count = size_t(t.uint64_data_size()); if (count == size_t(n)) pack<uint32_t>(bytes, t.uint64_data()); break;
      case DType::UInt64: count = size_t(t.uint64_data_size()); if (count == size_t(n)) pack<uint64_t>(bytes, t.uint64_data()); break;
      case DType::Int32: count = size_t(t.int32_data_size()); if (count == size_t(n)) pack<int32_t>(bytes, t.int32_data()); break;
      case DType::Int16: count = size_t(t.int32_data_size()); if (count == size_t(n)) pack<int16_t>(bytes, t.int32_data()); break;
      case DType::UInt16: case DType::Float16: case DType::BFloat16:
        count = size_t(t.int32_data_size()); if (count == size_t(n)) pack<uint16_t>(bytes, t.int32_data()); break;
      case DType::Int8: count = size_t(t.int32_data_size()); if (count == size_t(n)) pack<int8_t>(bytes, t.int32_data()); break;
      case DType::UInt8: case DType::Bool:
        count = size_t(t.int32_data_size()); if (count == size_t(n)) pack<uint8_t>(bytes, t.int32_data()); break;
      default: break;
    }
    if (count != size_t(n))
      throw CompileError(what + ": holds " + std::to_string(count) + " elements, its shape " +
                         "needs " + std::to_string(n));
  }
  return Constant::from_bytes(dt, std::move(shape), std::move(bytes));
}

ConstantPtr read_tensor_pb(const fs::path& file, std::string* name_out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CompileError("cannot open tensor file " + in_quotes(file.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  onnx::TensorProto t;
  if (!t.ParseFromString(ss.str())) throw CompileError(in_quotes(file.string()) + " is not a valid TensorProto file");
  if (name_out) *name_out = t.name();
  return constant_from_tensor_proto(t, file.parent_path(), "tensor file " + in_quotes(file.string()));
}

void write_tensor_pb(const fs::path& file, const std::string& name, const Constant& c) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(int32_t(c.dtype()));
  for (auto d : c.shape()) t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(c.data()), c.size_bytes()));
  std::ofstream out(file, std::ios::binary);
  if (!out || !t.SerializeToOstream(&out)) throw CompileError("cannot write " + in_quotes(file.string()));
}

}  // namespace kiln
