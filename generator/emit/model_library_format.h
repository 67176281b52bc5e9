// `--output-format=mlf`: packs a compiled module as a Model Library Format tar
// (the layout microTVM users know): codegen/host/src/*.c, codegen/host/include/*.h,
// runtime/ (the crt), metadata.json.
#pragma once

#include <filesystem>

#include "emit/compiled_module.h"

namespace kiln {

// Writes `tar_path`. Throws CompileError when the archive cannot be written.
void write_model_library_format(const CompiledModule& module, const std::filesystem::path& tar_path);

}  // namespace kiln
