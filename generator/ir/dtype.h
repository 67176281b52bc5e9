// Element types of tensors, numbered exactly as ONNX TensorProto.DataType so a
// value read from a model needs no translation table.
#pragma once

#include <cstdint>
#include <string>

namespace kiln {

enum class DType : int32_t {
  Undefined = 0,
  Float32 = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Float64 = 11,
  UInt32 = 12,
  UInt64 = 13,
  BFloat16 = 16,
};

// Bytes per element; 0 for types Kiln cannot store (String, Undefined).
size_t dtype_size(DType t);
// "float32", "int8", ...
std::string dtype_name(DType t);
// The C element type used in generated code: "float", "int8_t", "uint16_t" (float16 is stored as uint16_t).
std::string dtype_c_type(DType t);
// The crt enum constant: "KILN_DTYPE_FLOAT32", ...
std::string dtype_c_enum(DType t);
bool dtype_is_float(DType t);    // float16, bfloat16, float32, float64
bool dtype_is_integer(DType t);  // signed or unsigned integer (not bool)
bool dtype_is_known(int32_t onnx_code);

}  // namespace kiln
