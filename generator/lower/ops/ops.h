// One registration function per op file in this folder (called by lowering.cpp).
#pragma once

namespace kiln {

void register_elementwise_lowerings();    // Add Sub Mul Div Relu Sigmoid Tanh Clip
void register_conv_lowerings();           // Conv
void register_gemm_lowerings();           // Gemm MatMul
void register_pool_lowerings();           // MaxPool AveragePool GlobalAveragePool GlobalMaxPool
void register_layout_lowerings();         // Reshape Flatten Squeeze Unsqueeze Identity Dropout Transpose Concat
void register_normalization_lowerings();  // Softmax BatchNormalization

}  // namespace kiln
