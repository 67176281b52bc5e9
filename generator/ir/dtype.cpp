#include "ir/dtype.h"

namespace kiln {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::Float32: case DType::Int32: case DType::UInt32: return 4;
    case DType::UInt8: case DType::Int8: case DType::Bool: return 1;
    case DType::UInt16: case DType::Int16: case DType::Float16: case DType::BFloat16: return 2;
    case DType::Int64: case DType::UInt64: case DType::Float64: return 8;
    case DType::String: case DType::Undefined: return 0;
  }
  return 0;
}

std::string dtype_name(DType t) {
  switch (t) {
    case DType::Float32: return "float32";
    case DType::UInt8: return "uint8";
    case DType::Int8: return "int8";
    case DType::UInt16: return "uint16";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::String: return "string";
    case DType::Bool: return "bool";
    case DType::Float16: return "float16";
    case DType::Float64: return "float64";
    case DType::UInt32: return "uint32";
    case DType::UInt64: return "uint64";
    case DType::BFloat16: return "bfloat16";
    case DType::Undefined: return "undefined";
  }
  return "dtype(" + std::to_string(int(t)) + ")";
}

std::string dtype_c_type(DType t) {
  switch (t) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::UInt8: return "uint8_t";
    case DType::Int8: return "int8_t";
    case DType::UInt16: case DType::Float16: case DType::BFloat16: return "uint16_t";
    case DType::Int16: return "int16_t";
    case DType::Int32: return "int32_t";
    case DType::UInt32: return "uint32_t";
    case DType::Int64: return "int64_t";
    case DType::UInt64: return "uint64_t";
    case DType::Bool: return "uint8_t";
    default: return "uint8_t";
  }
}

std::string dtype_c_enum(DType t) {
  std::string n = dtype_name(t);
  for (auto& c : n) c = char(toupper(static_cast<unsigned char>(c)));
  return "KILN_DTYPE_" + n;
}

bool dtype_is_float(DType t) {
  return t == DType::Float32 || t == DType::Float64 || t == DType::Float16 || t == DType::BFloat16;
}

bool dtype_is_integer(DType t) {
  switch (t) {
    case DType::UInt8: case DType::Int8: case DType::UInt16: case DType::Int16: case DType::Int32:
    case DType::Int64: case DType::UInt32: case DType::UInt64: return true;
    default: return false;
  }
}

bool dtype_is_known(int32_t c) {
  return (c >= 1 && c <= 13 && c != 8) || c == 16;
}

}  // namespace kiln
