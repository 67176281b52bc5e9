// One registration function per op file in this folder. lower/lowering.cpp calls
// each of them, in one list (register_all_lowerings); adding an op file means
// adding its function here and there (docs/architecture.md, "Adding an operator").
#pragma once

namespace kiln {

void register_elementwise_lowerings();    // Add Sub Mul Div Mod Pow PRelu BitShift Min Max Sum Mean
void register_unary_math_lowerings();     // math functions, activations, IsNaN IsInf Clip
void register_logic_lowerings();          // And Or Xor Not
void register_compare_lowerings();        // Equal Less LessOrEqual Greater GreaterOrEqual
void register_cast_lowerings();           // Cast CastLike
void register_where_lowerings();          // Where
void register_shape_lowerings();          // Shape Size (when not folded)
void register_conv_lowerings();           // Conv
void register_conv_transpose_lowerings(); // ConvTranspose
void register_quantized_conv_lowerings(); // ConvInteger QLinearConv
void register_quantize_lowerings();       // QuantizeLinear DequantizeLinear DynamicQuantizeLinear
void register_resize_lowerings();         // Resize Upsample
void register_gemm_lowerings();           // Gemm MatMul MatMulInteger QLinearMatMul
void register_pool_lowerings();           // MaxPool AveragePool LpPool Global*Pool MaxUnpool
void register_layout_lowerings();         // Reshape Flatten Squeeze Unsqueeze Identity Transpose Concat Split Expand Tile DepthToSpace SpaceToDepth
void register_normalization_lowerings();  // BatchNormalization
void register_reduce_lowerings();         // Reduce* ArgMax ArgMin CumSum TopK
void register_softmax_lowerings();        // Softmax LogSoftmax Hardmax
void register_slice_lowerings();          // Slice
void register_pad_lowerings();            // Pad
void register_indexing_lowerings();       // Gather GatherElements GatherND OneHot Trilu
void register_scatter_lowerings();        // ScatterElements Scatter ScatterND
void register_generate_lowerings();       // ConstantOfShape Range
void register_selection_lowerings();      // NonZero Compress Unique NonMaxSuppression (declared output shapes)
void register_rnn_lowerings();            // RNN GRU LSTM
void register_einsum_lowerings();         // Einsum
void register_det_lowerings();            // Det
void register_control_flow_lowerings();   // KilnSelect KilnTakeSlice (flattened If / Scan)
void register_sequence_runtime_lowerings(); // KilnSeqBuild KilnSeqInsert KilnSeqErase KilnSeqAt KilnSeqMaterialize (run-time sequence positions)
void register_loss_lowerings();           // NegativeLogLikelihoodLoss SoftmaxCrossEntropyLoss
void register_optimizer_lowerings();      // ai.onnx.preview.training: Adagrad Momentum Adam
void register_text_lowerings();           // TfIdfVectorizer
void register_misc_lowerings();           // Shrink EyeLike ReverseSequence Dropout (mask / runtime training_mode)
void register_sample_lowerings();         // GridSample RoiAlign
void register_signal_lowerings();         // HannWindow HammingWindow BlackmanWindow DFT STFT MelWeightMatrix
void register_qnn_conv_lowerings();      // KilnQConv2D KilnQDepthwiseConv2D (int8, docs/quantization.md)
void register_qnn_fully_connected_lowerings(); // KilnQFullyConnected
void register_qnn_pool_lowerings();       // KilnQAvgPool2D KilnQMaxPool2D (int8 NHWC, docs/quantization.md)
void register_qnn_elementwise_lowerings(); // KilnQAdd KilnQSub KilnQMul
void register_qnn_lookup_lowerings();     // KilnQLookup
void register_qnn_softmax_lowerings();    // KilnQSoftmax
void register_qnn_quantize_lowerings();   // KilnQQuantizeF32 (TFLite's float -> int8 boundary)
void register_qnn_mean_lowerings();       // KilnQMean
void register_qnn_resize_lowerings();     // KilnQResizeBilinear
void register_qnn_batch_matmul_lowerings(); // KilnQBatchMatMul
void register_qnn_lstm_lowerings();       // KilnQLstm
// (normalization.cpp also registers InstanceNormalization LayerNormalization LRN MeanVarianceNormalization)

}  // namespace kiln
