// Loading a model file without copying its weights (see docs/folding.md).
//
// The .onnx file is memory-mapped. Before protobuf parses it, the raw_data of
// every large initializer is cut out of the bytes protobuf sees (a protobuf parse
// would copy it into a std::string) and replaced by an external-data reference to
// the model file itself; the importer then makes each such initializer a Constant
// that is a slice of the mapping. Importing a model therefore costs its metadata,
// not its weights, and a weight's pages are only read when something reads it.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ir/constant.h"

namespace kiln {

struct ModelBytes {
  ConstantBufferPtr file;                       // the whole model file, mapped
  std::string proto;                            // the model with large raw_data cut out
  struct Slice {
    size_t offset = 0, size = 0;
  };
  std::map<std::string, Slice> initializer_data;  // initializer name -> its raw_data in `file`
  bool has_external_data = false;                 // the model itself uses external data files
};

// Raw data at least this big is sliced instead of parsed.
constexpr size_t kSliceRawDataBytes = 4096;

// Maps `model_path` and prepares ModelBytes. Throws CompileError if the file cannot
// be read or is not a well-formed protobuf.
ModelBytes load_model_bytes(const std::filesystem::path& model_path);
// The same for a model held in memory (the fuzz target): nothing is sliced.
ModelBytes model_bytes_in_memory(std::vector<uint8_t> bytes);

// The constant of a sliced initializer (dtype and dims from its TensorProto), or
// null if `name` was not sliced.
ConstantPtr sliced_initializer(const ModelBytes& mb, const std::string& name, DType dtype,
                               const std::vector<int64_t>& dims, const std::string& what);

}  // namespace kiln
