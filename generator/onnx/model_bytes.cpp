#include "onnx/model_bytes.h"

#include "util/checked_math.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

// Minimal protobuf wire-format reader over a byte range.
struct Reader {
  const uint8_t* base;  // start of the file (offsets are reported from here)
  size_t pos, end;
  bool ok = true;

  bool done() const { return !ok || pos >= end; }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= end) return ok = false, 0;
      uint8_t b = base[pos++];
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    ok = false;
    return 0;
  }
  // Skips the payload of a field of wire type `wt`; returns [start, end) of a
  // length-delimited payload in *s, *e.
  void skip(uint32_t wt, size_t* s = nullptr, size_t* e = nullptr) {
    switch (wt) {
      case 0: varint(); break;
      case 1: pos += 8; break;
      case 5: pos += 4; break;
      case 2: {
        uint64_t n = varint();
        if (!ok || n > end - pos) return void(ok = false);
        if (s) *s = pos;
        pos += size_t(n);
        if (e) *e = pos;
        break;
      }
      default: ok = false;  // groups (3, 4) do not occur in ONNX
    }
    if (pos > end) ok = false;
  }
};

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(char(uint8_t(v) | 0x80));
    v >>= 7;
  }
  out.push_back(char(v));
}
void put_len_field(std::string& out, uint32_t field, const std::string& payload) {
  put_varint(out, (uint64_t(field) << 3) | 2);
  put_varint(out, payload.size());
  out += payload;
}
void put_entry(std::string& out, const std::string& k, const std::string& v) {
  std::string e;
  put_len_field(e, 1, k);
  put_len_field(e, 2, v);
  put_len_field(out, 13, e);  // TensorProto.external_data
}

// TensorProto: cuts out a large raw_data (field 9) and points at the model file.
std::string rewrite_tensor(Reader r, ModelBytes& mb, const std::string& location, size_t slice_bytes) {
  const uint8_t* b = r.base;
  std::string out, name;
  size_t raw_s = 0, raw_e = 0;
  bool external = false;
  while (!r.done()) {
    size_t field_start = r.pos;
    uint64_t tag = r.varint();
    uint32_t field = uint32_t(tag >> 3), wt = uint32_t(tag & 7);
    size_t s = 0, e = 0;
    r.skip(wt, &s, &e);
    if (!r.ok) break;
    if (field == 8 && wt == 2) name.assign(reinterpret_cast<const char*>(b + s), e - s);
    if (field == 14 && wt == 0) external = true;
    if (field == 9 && wt == 2 && e - s >= slice_bytes) {
      raw_s = s, raw_e = e;
      continue;
    }
    out.append(reinterpret_cast<const char*>(b + field_start), r.pos - field_start);
  }
  if (!r.ok) throw CompileError("model file is not a valid ONNX protobuf (malformed initializer)");
  if (external) mb.has_external_data = true;
  if (raw_e > raw_s && !name.empty()) {
    mb.initializer_data[name] = {raw_s, raw_e - raw_s};
    // ONNX's checker and shape inference see an external tensor of the right type
    // and shape; only Kiln reads its bytes (straight from the mapping).
    put_varint(out, (14u << 3) | 0);
    put_varint(out, 1);  // EXTERNAL
    put_entry(out, "location", location);
    put_entry(out, "offset", std::to_string(raw_s));
    put_entry(out, "length", std::to_string(raw_e - raw_s));
  } else if (raw_e > raw_s) {
    put_len_field(out, 9, std::string(reinterpret_cast<const char*>(b + raw_s), raw_e - raw_s));  // unnamed: keep
  }
  return out;
}

// Copies a message, rewriting the length-delimited fields `field` with `fn`.
template <typename Fn>
std::string rewrite_message(Reader r, uint32_t target, Fn fn) {
  std::string out;
  while (!r.done()) {
    size_t field_start = r.pos;
    uint64_t tag = r.varint();
    uint32_t field = uint32_t(tag >> 3), wt = uint32_t(tag & 7);
    size_t s = 0, e = 0;
    r.skip(wt, &s, &e);
    if (!r.ok) break;
    if (field == target && wt == 2) put_len_field(out, field, fn(Reader{r.base, s, e}));
    else out.append(reinterpret_cast<const char*>(r.base + field_start), r.pos - field_start);
  }
  if (!r.ok) throw CompileError("model file is not a valid ONNX protobuf (truncated or corrupt)");
  return out;
}

}  // namespace

namespace {

ModelBytes split_model_bytes(ConstantBufferPtr file, const std::string& location, size_t slice_bytes) {
  ModelBytes mb;
  mb.file = std::move(file);
  Reader top{mb.file->data(), 0, mb.file->size()};
  mb.proto = rewrite_message(top, 7, [&](Reader graph) {         // ModelProto.graph
    return rewrite_message(graph, 5, [&](Reader tensor) {        // GraphProto.initializer
      return rewrite_tensor(tensor, mb, location, slice_bytes);
    });
  });
  return mb;
}

}  // namespace

ModelBytes load_model_bytes(const std::filesystem::path& model_path) {
  ConstantBufferPtr file;
  try {
    file = ConstantBuffer::map_file(model_path);
  } catch (const std::exception& e) {
    throw CompileError("cannot read model file: " + escaped(e.what(), kMaxOnnxMessageBytes));
  }
  // The checker resolves external data relative to the working directory when it
  // checks a model in memory: an absolute location always finds the file.
  const std::string location = std::filesystem::absolute(model_path).lexically_normal().string();
  return split_model_bytes(std::move(file), location, kSliceRawDataBytes);
}

ModelBytes model_bytes_in_memory(std::vector<uint8_t> bytes) {
  // Nothing is sliced: there is no file for ONNX's checker to find the slices in.
  return split_model_bytes(ConstantBuffer::owned(std::move(bytes)), "", SIZE_MAX);
}

ConstantPtr sliced_initializer(const ModelBytes& mb, const std::string& name, DType dtype,
                               const std::vector<int64_t>& dims, const std::string& what) {
  auto it = mb.initializer_data.find(name);
  if (it == mb.initializer_data.end()) return nullptr;
  if (dtype_size(dtype) == 0) throw CompileError(what + ": element type is not supported");
  const size_t expected = size_t(checked_tensor_bytes(dims, dtype_size(dtype), what));
  if (expected != it->second.size)
    throw CompileError(what + ": raw_data has " + std::to_string(it->second.size) + " bytes, expected " +
                       std::to_string(expected));
  auto slice = ConstantBuffer::slice(mb.file, it->second.offset, it->second.size, ConstantBuffer::Origin::ModelData);
  return Constant::from_buffer(dtype, dims, std::move(slice));
}

}  // namespace kiln
