// Reading a .tflite file: flatbuffer verification, then validation of everything
// the file says, into plain structs the importer can trust.
//
// Nothing of the file is used before it has been checked: flatbuffers' Verifier
// proves every offset stays inside the file, then load_tflite checks the meaning
// (indices in range, shapes non-negative and of sane size, constant buffers as
// large as their tensors, quantization arrays as long as their axis) and sparse
// constants are densified (densify.h). A bad file
// gets a one-line CompileError naming what is wrong (and the operator and its
// index when it is about an operator). Constant data is not copied: each constant
// tensor is a slice of the memory-mapped file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ir/constant.h"
#include "ir/dtype.h"

namespace kiln::tflite_fb {
struct Operator;
}

namespace kiln::tflite {

// True when the file carries the TFLite file identifier "TFL3" at bytes 4..8
// (whatever its extension). False for an unreadable or too short file.
bool is_tflite_file(const std::filesystem::path& path);

struct Quantization {
  std::vector<float> scale;        // empty: not quantized
  std::vector<int64_t> zero_point;  // same length as scale
  int32_t quantized_dimension = 0;  // the axis when there is more than one scale
  bool per_tensor() const { return scale.size() == 1; }
};

struct Tensor {
  int index = 0;
  std::string name;
  DType dtype = DType::Undefined;
  std::vector<int64_t> shape;
  Quantization quant;
  ConstantPtr data;  // set for a tensor with a non-empty buffer (a constant)
  bool is_variable = false;  // state a stateful operator (LSTM) updates in place
  bool is_resource = false;  // a resource variable's handle (dtype Undefined)
  // How messages name it: "tensor 'conv/bias'", or "tensor 7" when it has no name.
  std::string label() const;
  // The same as a noun's complement ("output 'conv/bias'", "output tensor 7").
  std::string quoted() const;
};

struct Operator {
  int index = 0;         // position in the subgraph's operator list
  int32_t code = 0;      // BuiltinOperator
  std::string name;      // "CONV_2D", or "CUSTOM(name)"
  int32_t version = 1;
  std::vector<int> inputs;   // tensor indices; -1 marks an omitted optional input
  std::vector<int> outputs;
  const tflite_fb::Operator* fb = nullptr;  // for the builtin options (verified)
  // "CONV_2D (operator 3)": how errors name an operator.
  std::string describe() const;
};

struct Model {
  ConstantBufferPtr file;  // keeps the mapping (and so `fb` pointers) alive
  uint32_t version = 0;
  std::string description;
  std::vector<Tensor> tensors;
  std::vector<Operator> operators;
  std::vector<int> inputs, outputs;  // tensor indices of the main subgraph
};

// Maps, verifies and validates `path`. Throws CompileError (one line) for a file
// that is not a valid TFLite model Kiln can read.
Model load_tflite(const std::filesystem::path& path);
// The same from bytes already in memory (tests; `name` is used in messages).
Model load_tflite_buffer(ConstantBufferPtr bytes, const std::string& name);

// "CONV_2D" for a builtin operator code, "BUILTIN_<n>" for one this build does not name.
std::string builtin_name(int32_t code);

}  // namespace kiln::tflite
