// Emission: a bufferized, planned program -> the module's C files.
//
// Writes metadata.h / metadata.c (the public API and the descriptor),
// operators.c (the planned kernel calls), one parameters_<pool>.c per parameter
// pool, module_internal.h, module.mk / CMakeLists.txt for integration, and a copy
// of the runtime (crt/). The text of every file comes from templates/.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bufferize/bufferize.h"
#include "emit/compiled_module.h"
#include "ir/graph.h"

namespace kiln {

struct EmitPool {
  std::string name;
  bool is_workspace = true;
  bool is_user = false;         // false: a static array inside the module
  uint64_t size_bytes = 0;      // what the plan needs
  uint32_t alignment = 16;
  std::string section;          // optional linker section for the pool's array
  std::optional<uint64_t> capacity;
};

// Where each buffer of the program lives.
struct EmitPlan {
  std::vector<EmitPool> pools;
  std::vector<int> buffer_pool;         // per program buffer: pool index, or -1 for caller I/O
  std::vector<uint64_t> buffer_offset;  // byte offset in that pool
};

struct EmitOptions {
  std::string module_name = "default";
  std::filesystem::path output_dir;   // the module's folder as CompiledModule and module.mk name it
  std::filesystem::path write_dir;    // where the files are written (a staging folder); empty: output_dir
  bool write_files = true;            // false: render everything, write nothing, keep the text (CompiledModule::files)
  std::string model_file;  // for the header comments
  // --io-in-workspace: inputs/outputs have a pool and offset in the plan; emit
  // kiln_<mod>_map_inputs/_map_outputs and address them through the pools.
  bool io_in_workspace = false;
};

CompiledModule emit_module(const Graph& graph, const BufferizedProgram& program, const EmitPlan& plan,
                           const EmitOptions& options);

// The C expression of a byte offset into a pool, e.g. "kiln_pool_sram + 1024u".
std::string pool_offset_expr(const std::string& pool_var, uint64_t offset);

}  // namespace kiln
