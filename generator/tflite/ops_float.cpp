// Float32 TFLite operators -> ONNX-style IR ops.
//
// Kiln's float kernels for spatial ops are NCHW; a float spatial operator becomes
// Transpose(NHWC->NCHW), the ONNX op, Transpose(NCHW->NHWC). Folding cancels a
// Transpose pair between two such operators.

#include "tflite/import_context.h"

namespace kiln::tflite {

void register_float_ops() {}

}  // namespace kiln::tflite
