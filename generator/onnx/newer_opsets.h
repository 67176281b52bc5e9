// ai.onnx opsets 18 to 21, brought down to the opset-17 forms Kiln imports.
//
// Kiln reads models with ONNX's own checker and shape inference, and the ONNX it
// builds against (Debian's 1.12) knows operator schemas up to opset 17. A model at
// opset 18..21 is rewritten on the protobuf, before validation and before ONNX sees
// it, into an equivalent opset-17 model:
//   - operators whose signature changed get their opset-17 form: Reduce* axes as an
//     input -> the axes attribute (the axes must be constants), Split num_outputs ->
//     split sizes, Pad axes / Resize axes -> full-rank pads / scales / sizes
//     (computed from Shape by small node chains that folding turns into constants),
//     GridSample's renamed modes, attributes that only matter for types Kiln does
//     not support (saturate, block_size 0) dropped;
//   - operators new since opset 18 that have an exact opset-17 expression are
//     expanded into it (Mish, Gelu, GroupNormalization);
//   - everything else (a new attribute value Kiln cannot honour, an operator with
//     no opset-17 form) is a CompileError naming the node.
// Operators whose only change is new data types (Cast, Reshape, Shape, If, ...)
// need nothing: their opset-17 schema accepts every type Kiln supports.
// Model-local functions (FunctionProto) are inlined first, at every opset.
#pragma once

#include <cstdint>
#include <filesystem>

namespace onnx {
class ModelProto;
}

namespace kiln {

// The newest ai.onnx opset Kiln accepts (the rewrite above brings it to kMaxOpset).
constexpr int64_t kNewestOpset = 21;

// Replaces every call of a model-local function (model.functions) by the
// function's body, with fresh names and the call's attributes substituted;
// removes the functions. A no-op for a model without functions.
void inline_model_functions(onnx::ModelProto& model);

// Rewrites a model whose ai.onnx opset is `opset` (18..21) into opset `target`
// (17): nodes in the main graph and every subgraph, the opset import, and an IR
// version ONNX 1.12's checker accepts. `base_dir` resolves external data of the
// constants it reads.
void lower_newer_opset(onnx::ModelProto& model, int64_t opset, int64_t target, const std::filesystem::path& base_dir);

}  // namespace kiln
