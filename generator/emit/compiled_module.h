// What `kiln compile` produced, as the rest of the tool (verify, reports) sees it:
// the output folder, its C sources, and the module's interface (inputs, outputs,
// user pools). This is the narrow contract between the emitter and `kiln verify`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace kiln {

struct CompiledTensor {
  std::string name;        // ONNX name
  std::string c_name;      // sanitized C identifier used in the structs
  DType dtype = DType::Undefined;
  std::vector<int64_t> shape;
  uint64_t size_bytes = 0;
};

struct CompiledPool {
  std::string name;        // user pool name ("sram")
  std::string c_name;      // sanitized C identifier
  bool is_workspace = true;
  bool is_user_pool = true;  // false: internal static array in metadata.c
  uint64_t size_bytes = 0;
  uint32_t alignment = 16;
  std::string size_macro;  // KILN_<MOD>_<POOL>_WORKSPACE_SIZE / _PARAMETER_SIZE
};

// An ONNX sequence-typed graph input/output: `count` consecutive entries of
// CompiledModule::inputs/outputs starting at `first` (named <name>_0..); `position`
// is its index among the ONNX graph's inputs/outputs (the test data's input_K.pb).
struct CompiledSequence {
  std::string name;
  bool is_input = true;
  size_t position = 0, first = 0, count = 0;
};

// A graph input fixed at compile time (--input-value): not in `inputs`; `position`
// is its index among the ONNX graph's inputs (the test data's input_K.pb).
struct CompiledBoundInput {
  std::string name;
  size_t position = 0;
  std::vector<double> values;
};

// One operator call of operators.c (step i = ops[i]), for profiles.
struct CompiledOp {
  std::string label;    // "Conv 'conv1'", or "copy to output 'y'" for an inserted copy
  std::string op_type;  // "Conv"; "copy" for an inserted copy
  std::vector<int64_t> output_shape;  // of its first output
  uint64_t macs = 0;    // multiply-accumulates (emit/op_summary.h); 0: not a MAC op
};

struct CompiledModule {
  std::string module_name;            // "cnn": symbols are kiln_cnn_*
  std::filesystem::path dir;          // output folder
  // Module C sources (metadata.c, operator files, parameter files); NOT the crt copy.
  std::vector<std::filesystem::path> sources;
  // Include folders needed to compile them: the module folder and its crt/include copy.
  std::vector<std::filesystem::path> include_dirs;
  std::filesystem::path crt_dir;      // the crt copy in the output (include/ + src/)
  // The runtime files this module needs, relative to crt_dir ("src/kernels/conv.c"):
  // crt/src/runtime/ and the kernels its code calls, with what they call
  // (emit/kernel_index.h). module.mk, CMakeLists.txt and `kiln verify` build these.
  std::vector<std::string> crt_sources;
  // When nothing was written (compile_model_in_memory): the text of every file the
  // module would have (metadata.h, operators.c, parameters_*.c, module.mk, ...; not
  // the crt copy), by file name, for the fuzz targets' oracle (tests/fuzz/). Empty
  // when the files were written.
  std::map<std::string, std::string> files;
  std::vector<CompiledTensor> inputs, outputs;
  std::vector<CompiledSequence> sequences;  // sequence-typed graph inputs/outputs
  std::vector<CompiledBoundInput> bound_inputs;  // inputs fixed at compile time
  std::vector<CompiledPool> pools;    // workspace pools, then parameter pools
  std::vector<CompiledOp> ops;        // the operator calls in execution order
};

}  // namespace kiln
