// Mutation kinds for names (issue 28), for both fuzz targets' custom mutators
// (fuzz_target.cpp): a graph input's, output's or tensor's name becomes a C
// keyword, a reserved or standard identifier (kind 0), a name equal to another
// after case folding (1) or sanitizing (2), a name with control characters, NUL
// or U+202E (3), a 10 KB name (4), one with a leading "_" and capital (5), one
// holding C syntax ("*/", quotes, backslashes, trigraphs, "#define"; 6), an
// empty or blank name (7).
// Kiln must either compile such a model to C that builds (names never reserved,
// macros unique: fuzz_compile.cpp checks the module's names) or refuse it in one
// clean line.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::fuzz {

// The kinds, picked by `seed % kNameMutationKinds`.
constexpr uint32_t kNameMutationKinds = 8;

// The kind a seed picks (the custom mutators and the tests use the same rule).
constexpr uint32_t name_mutation_kind(uint32_t seed) { return (seed / 3) % kNameMutationKinds; }

// ONNX: renames one graph input or output (chosen by `seed`) and every use of it.
// Returns false when `model` is no ModelProto with a graph input or output.
bool mutate_onnx_name(std::vector<uint8_t>& model, uint32_t seed);
// TFLite: renames one tensor of the first subgraph: in place when the new name has
// the old one's length, else as a string appended to the buffer that the tensor's
// name field is repointed to (the flatbuffer stays valid). Returns false when
// `model` is no verified flatbuffer with a named tensor.
bool mutate_tflite_name(std::vector<uint8_t>& model, uint32_t seed);

}  // namespace kiln::fuzz
