// The operator semantics of Kiln's IR: default-domain nodes follow ai.onnx at this
// opset (or older, per Node::opset). The ONNX importer brings newer models down to
// it (onnx/newer_opsets.h); the TFLite importer maps its operators onto it.
#pragma once

#include <cstdint>

namespace kiln {

constexpr int64_t kIrOpset = 17;

}  // namespace kiln
