#include "tflite/tflite_file.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "ir/graph.h"
#include "tflite/densify.h"
#include "tflite/tflite_schema_generated.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln::tflite {

namespace fs = std::filesystem;
namespace fb = kiln::tflite_fb;

namespace {

// A tensor may not have more elements than a 32-bit index reaches: the crt
// kernels index with int32, and a hostile shape must not overflow our products.
constexpr int64_t kMaxElements = std::numeric_limits<int32_t>::max();

// A string from the file with control characters replaced by '?': names end up in
// one-line error messages and in generated identifiers' comments.
std::string printable(const flatbuffers::String* s) {
  std::string out = s ? s->str() : std::string();
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
  return out;
}

std::string tensor_label(int index, const fb::Tensor* t) {
  std::string s = "tensor " + std::to_string(index);
  if (t && t->name() && t->name()->size() > 0) s += " " + in_quotes(t->name()->str());
  return s;
}

DType to_dtype(fb::TensorType t) {
  switch (t) {
    case fb::TensorType::FLOAT32: return DType::Float32;
    case fb::TensorType::FLOAT16: return DType::Float16;
    case fb::TensorType::FLOAT64: return DType::Float64;
    case fb::TensorType::INT8: return DType::Int8;
    case fb::TensorType::INT16: return DType::Int16;
    case fb::TensorType::INT32: return DType::Int32;
    case fb::TensorType::INT64: return DType::Int64;
    case fb::TensorType::UINT8: return DType::UInt8;
    case fb::TensorType::UINT16: return DType::UInt16;
    case fb::TensorType::UINT32: return DType::UInt32;
    case fb::TensorType::UINT64: return DType::UInt64;
    case fb::TensorType::BOOL: return DType::Bool;
    default: return DType::Undefined;
  }
}

std::string type_name(fb::TensorType t) {
  const char* n = fb::EnumNameTensorType(t);
  return n && *n ? n : "type " + std::to_string(int(t));
}

// Element i of a flatbuffer [long] vector. The verifier checks that the vector's
// length word is 4-byte aligned, not that its 8-byte elements are 8-byte aligned
// (a converter aligns them; a crafted file need not, found by `make fuzz`): the
// bytes are copied out instead of read through a misaligned int64 pointer. The
// file is little-endian, as are the hosts Kiln builds for.
int64_t unaligned_int64(const flatbuffers::Vector<int64_t>& v, size_t i) {
  int64_t x;
  std::memcpy(&x, v.Data() + i * sizeof(int64_t), sizeof x);
  return x;
}

// Everything about one tensor except its data.
Tensor read_tensor(int index, const fb::Tensor* t, const std::string& file) {
  const std::string who = file + ": " + tensor_label(index, t);
  if (!t) throw CompileError(who + " is missing");
  Tensor out;
  out.index = index;
  out.name = printable(t->name());
  out.dtype = to_dtype(t->type());
  out.is_resource = t->type() == fb::TensorType::RESOURCE;  // a VAR_HANDLE's handle: no elements Kiln reads
  if (out.dtype == DType::Undefined && !out.is_resource)
    throw CompileError(who + " has element type " + type_name(t->type()) + ", which Kiln does not support");
  out.is_variable = t->is_variable();
  int64_t elements = 1;
  if (t->shape()) {
    if (t->shape()->size() > 8) throw CompileError(who + " has rank " + std::to_string(t->shape()->size()) +
                                                   "; Kiln supports up to rank 8");
    for (int32_t d : *t->shape()) {
      if (d < 0) throw CompileError(who + " has a negative dimension " + std::to_string(d));
      out.shape.push_back(d);
      elements = d == 0 ? 0 : elements * d;
      if (elements > kMaxElements) throw CompileError(who + " has more than 2^31-1 elements");
    }
  }
  if (const auto* q = t->quantization()) {
    if (q->details_type() != fb::QuantizationDetails::NONE)
      throw CompileError(who + " uses custom quantization, which Kiln does not support");
    const size_t ns = q->scale() ? q->scale()->size() : 0;
    const size_t nz = q->zero_point() ? q->zero_point()->size() : 0;
    // TFLM reads one zero point for many scales as that zero point for every
    // channel (converters shrink the all-zero array of weights that way).
    if (ns != nz && !(nz == 1 && ns > 1))
      throw CompileError(who + " has " + std::to_string(ns) + " quantization scales but " + std::to_string(nz) +
                         " zero points");
    if (ns > 0) {
      int32_t qd = q->quantized_dimension();
      // Converters copy the weights' quantized dimension onto the 1-D per-channel
      // bias (TFLM's person_detect: axis 3 on a [8] bias). TFLM never checks the
      // axis of a tensor it does not slice, and a rank-1 tensor has one axis to
      // mean: it is axis 0.
      if (ns > 1 && out.shape.size() == 1) qd = 0;
      out.quant.quantized_dimension = qd;
      if (ns > 1) {
        if (qd < 0 || size_t(qd) >= out.shape.size())
          throw CompileError(who + " is quantized along axis " + std::to_string(qd) + " but has rank " +
                             std::to_string(out.shape.size()));
        if (int64_t(ns) != out.shape[qd])
          throw CompileError(who + " has " + std::to_string(ns) + " quantization scales for axis " +
                             std::to_string(qd) + " of size " + std::to_string(out.shape[qd]));
      }
      for (size_t i = 0; i < ns; ++i) {
        const float s = q->scale()->Get(i);
        const int64_t z = unaligned_int64(*q->zero_point(), nz == ns ? i : 0);
        if (!std::isfinite(s) || s <= 0)
          throw CompileError(who + " has quantization scale " + std::to_string(s) + " (must be finite and > 0)");
        if (z < -(int64_t(1) << 31) || z >= (int64_t(1) << 31))
          throw CompileError(who + " has zero point " + std::to_string(z) + " out of the int32 range");
        out.quant.scale.push_back(s);
        out.quant.zero_point.push_back(z);
      }
    }
  }
  return out;
}

// Where buffer `b`'s bytes lie in the file: [offset, offset + size), size 0 when empty.
std::pair<size_t, size_t> buffer_extent(const fb::Buffer* b, const ConstantBufferPtr& file, const std::string& who) {
  size_t offset = 0, size = 0;
  if (b->offset() > 1) {
    // Data outside the flatbuffer (models over 2 GB): [offset, offset+size) of the file.
    if (b->offset() > file->size() || b->size() > file->size() - b->offset())
      throw CompileError(who + ": its buffer's data [" + std::to_string(b->offset()) + ", +" +
                         std::to_string(b->size()) + ") lies outside the file");
    offset = size_t(b->offset());
    size = size_t(b->size());
  } else if (b->data() && b->data()->size() > 0) {
    offset = size_t(b->data()->Data() - file->data());
    size = b->data()->size();
  }
  return {offset, size};
}

// The data of tensor `t` (`fbt` in the file) from buffer `b`, or null when the
// buffer is empty. A sparse tensor is densified here (tflite/densify.h).
ConstantPtr tensor_data(const Tensor& t, const fb::Tensor* fbt, const fb::Buffer* b, const ConstantBufferPtr& file,
                        const std::string& who) {
  const auto [offset, size] = buffer_extent(b, file, who);
  if (fbt->sparsity()) {
    if (size == 0) throw CompileError(who + " is sparse but has no data");
    return densify(t.dtype, t.shape, *fbt->sparsity(), file->data() + offset, size, who);
  }
  if (size == 0) return nullptr;
  const int64_t elements = shape_elements(t.shape);
  const uint64_t want = uint64_t(elements) * dtype_size(t.dtype);
  if (size != want)
    throw CompileError(who + ": its buffer has " + std::to_string(size) + " bytes but " + dtype_name(t.dtype) + " " +
                       shape_str(t.shape) + " needs " + std::to_string(want));
  auto slice = ConstantBuffer::slice(file, offset, size, ConstantBuffer::Origin::ModelData);
  return Constant::from_buffer(t.dtype, t.shape, slice);
}

std::vector<int> index_list(const flatbuffers::Vector<int32_t>* v) {
  std::vector<int> out;
  if (v)
    for (int32_t i : *v) out.push_back(i);
  return out;
}

}  // namespace

std::string builtin_name(int32_t code) {
  if (code >= int32_t(fb::BuiltinOperator::MIN) && code <= int32_t(fb::BuiltinOperator::MAX)) {
    const char* n = fb::EnumNameBuiltinOperator(fb::BuiltinOperator(code));
    if (n && *n) return n;
  }
  return "BUILTIN_" + std::to_string(code);
}

std::string Tensor::label() const { return name.empty() ? "tensor " + std::to_string(index) : "tensor " + in_quotes(name); }

std::string Tensor::quoted() const { return name.empty() ? "tensor " + std::to_string(index) : in_quotes(name); }

std::string Operator::describe() const { return name + " (operator " + std::to_string(index) + ")"; }

bool is_tflite_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  if (!in.read(head, sizeof head)) return false;
  return std::memcmp(head + 4, fb::ModelIdentifier(), 4) == 0;
}

Model load_tflite(const fs::path& path) {
  ConstantBufferPtr bytes;
  try {
    bytes = ConstantBuffer::map_file(path);
  } catch (const std::exception& e) {
    throw CompileError("cannot read " + in_quotes(path.string()) + ": " + e.what());
  }
  return load_tflite_buffer(bytes, path.filename().string());
}

Model load_tflite_buffer(ConstantBufferPtr bytes, const std::string& file) {
  const uint8_t* base = bytes->data();
  const size_t size = bytes->size();
  if (size < 8 || std::memcmp(base + 4, fb::ModelIdentifier(), 4) != 0)
    throw CompileError(file + ": not a TFLite model (no \"TFL3\" file identifier)");
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    throw CompileError(file + ": the flatbuffer is larger than 2 GB");
  flatbuffers::Verifier verifier(base, size);
  if (!fb::VerifyModelBuffer(verifier))
    throw CompileError(file + ": the flatbuffer is corrupt or truncated (flatbuffers verification failed)");
  const fb::Model* m = fb::GetModel(base);

  Model out;
  out.file = bytes;
  out.version = m->version();
  if (m->version() != 3)
    throw CompileError(file + ": TFLite schema version " + std::to_string(m->version()) + "; Kiln reads version 3");
  out.description = printable(m->description());
  if (!m->subgraphs() || m->subgraphs()->size() == 0) throw CompileError(file + ": the model has no subgraph");
  const fb::SubGraph* sg = m->subgraphs()->Get(0);
  const size_t nbuffers = m->buffers() ? m->buffers()->size() : 0;

  const auto* tensors = sg->tensors();
  const int ntensors = tensors ? int(tensors->size()) : 0;
  for (int i = 0; i < ntensors; ++i) {
    const fb::Tensor* t = tensors->Get(i);
    Tensor tensor = read_tensor(i, t, file);
    const std::string who = file + ": " + tensor_label(i, t);
    if (t->buffer() >= nbuffers)
      throw CompileError(who + " refers to buffer " + std::to_string(t->buffer()) + " but the model has " +
                         std::to_string(nbuffers));
    const fb::Buffer* b = m->buffers()->Get(t->buffer());
    if (!b) throw CompileError(who + ": buffer " + std::to_string(t->buffer()) + " is missing");
    tensor.data = tensor_data(tensor, t, b, bytes, who);
    out.tensors.push_back(std::move(tensor));
  }

  auto check_tensor_indices = [&](const std::vector<int>& v, bool allow_omitted, const std::string& who) {
    for (int i : v)
      if ((i < 0 && !(allow_omitted && i == -1)) || i >= ntensors)
        throw CompileError(who + " refers to tensor " + std::to_string(i) + " but the subgraph has " +
                           std::to_string(ntensors));
  };
  out.inputs = index_list(sg->inputs());
  out.outputs = index_list(sg->outputs());
  check_tensor_indices(out.inputs, false, file + ": the subgraph's input list");
  check_tensor_indices(out.outputs, false, file + ": the subgraph's output list");
  if (out.outputs.empty()) throw CompileError(file + ": the model has no outputs");

  const size_t ncodes = m->operator_codes() ? m->operator_codes()->size() : 0;
  if (sg->operators())
    for (size_t k = 0; k < sg->operators()->size(); ++k) {
      const fb::Operator* op = sg->operators()->Get(k);
      Operator o;
      o.index = int(k);
      o.fb = op;
      const std::string where = file + ": operator " + std::to_string(k);
      if (op->opcode_index() >= ncodes)
        throw CompileError(where + " refers to operator code " + std::to_string(op->opcode_index()) +
                           " but the model has " + std::to_string(ncodes));
      const fb::OperatorCode* oc = m->operator_codes()->Get(op->opcode_index());
      // Files before the extended field carry only the byte code; later ones
      // carry both, and codes over 127 only in the extended field.
      o.code = std::max<int32_t>(oc->deprecated_builtin_code(), int32_t(oc->builtin_code()));
      o.version = oc->version();
      if (o.code == int32_t(fb::BuiltinOperator::CUSTOM))
        o.name = "CUSTOM(" + printable(oc->custom_code()) + ")";
      else
        o.name = builtin_name(o.code);
      o.inputs = index_list(op->inputs());
      o.outputs = index_list(op->outputs());
      check_tensor_indices(o.inputs, true, file + ": " + o.describe() + " input list");
      check_tensor_indices(o.outputs, false, file + ": " + o.describe() + " output list");
      out.operators.push_back(std::move(o));
    }
  return out;
}

}  // namespace kiln::tflite
