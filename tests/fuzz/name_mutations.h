// Mutation kinds for names (issue 28), for both fuzz targets' custom mutators
// (fuzz_target.cpp): a graph input's, output's or tensor's name becomes a C
// keyword, a reserved or standard identifier, a name equal to another after case
// folding or sanitizing, a name with control characters or U+202E, or a 10 KB name.
// Kiln must either compile such a model to C that builds (names never reserved,
// macros unique: fuzz_compile.cpp checks the module's names) or refuse it in one
// clean line.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::fuzz {

// The kinds, picked by `seed % kNameMutationKinds`.
constexpr uint32_t kNameMutationKinds = 6;

// ONNX: renames one graph input or output (chosen by `seed`) and every use of it.
// Returns false when `model` is no ModelProto with a graph input or output.
bool mutate_onnx_name(std::vector<uint8_t>& model, uint32_t seed);
// TFLite: overwrites the bytes of one tensor name (same length, so the flatbuffer
// stays valid; a 10 KB name is not possible in place). Returns false when `model`
// has no named tensor.
bool mutate_tflite_name(std::vector<uint8_t>& model, uint32_t seed);

}  // namespace kiln::fuzz
