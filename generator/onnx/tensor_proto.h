// Conversion of ONNX TensorProto (initializers, Constant attributes, test data
// .pb files) into Kiln constants, and back.
#pragma once

#include <filesystem>
#include <string>

#include "ir/constant.h"

namespace onnx {
class TensorProto;
}

namespace kiln {

// Reads the elements from raw_data, the typed fields (float_data, int32_data,
// int64_data, double_data, uint64_data, with ONNX's packing rules), or an external
// data file located relative to `base_dir`. Throws CompileError naming `what` when
// the tensor is malformed, uses an unsupported dtype, or its data is missing.
ConstantPtr constant_from_tensor_proto(const onnx::TensorProto& t, const std::filesystem::path& base_dir,
                                       const std::string& what);

// Resolves an external-data `location` of a tensor of the model in `base_dir`: a
// relative path that, with every symlink resolved, names a regular file inside
// `base_dir` (no escape through a link, no FIFO or device). Throws CompileError
// naming `what` otherwise.
std::filesystem::path resolve_external_location(const std::string& location, const std::filesystem::path& base_dir,
                                                const std::string& what);

// How many elements the typed field of `t` for dtype `dt` holds (float_data,
// int32_data, ...), ignoring raw_data.
size_t typed_field_count(const onnx::TensorProto& t, DType dt);

// Reads a serialized TensorProto file (ONNX test data input_N.pb / output_N.pb).
// `name_out`, when non-null, receives the tensor's name.
ConstantPtr read_tensor_pb(const std::filesystem::path& file, std::string* name_out = nullptr);

// Writes `c` as a TensorProto with raw_data.
void write_tensor_pb(const std::filesystem::path& file, const std::string& name, const Constant& c);

}  // namespace kiln
