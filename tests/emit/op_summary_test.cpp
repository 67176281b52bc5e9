// The MAC counts profiles print (emit/op_summary.h).
#include <gtest/gtest.h>

#include "../support/graph_builder.h"
#include "emit/op_summary.h"

namespace kiln {
namespace {

using test_support::GraphBuilder;

TEST(OpSummary, ConvolutionMacsAreOutputsTimesWeightsPerOutputChannel) {
  GraphBuilder b;
  // 3x3 conv, 4 -> 8 channels, 10x10 output: 8*10*10 outputs x (4*3*3) MACs each.
  Node* conv = b.op("Conv", "c", {b.input("x", {1, 4, 12, 12}), b.cst("w", {8, 4, 3, 3})}, {b.val("y", {1, 8, 10, 10})});
  EXPECT_EQ(multiply_accumulates(*conv), 800u * 36u);
  // Grouped: W [8, 2, 3, 3] (group 2): 18 MACs per output.
  Node* grouped =
      b.op("Conv", "g", {b.input("x2", {1, 4, 12, 12}), b.cst("w2", {8, 2, 3, 3})}, {b.val("y2", {1, 8, 10, 10})});
  EXPECT_EQ(multiply_accumulates(*grouped), 800u * 18u);
  // Int8 IR: depthwise W [KH, KW, Cout]: KH*KW per output; conv W [Cout, KH, KW, Cin].
  Node* dw = b.op("KilnQDepthwiseConv2D", "dw", {b.input("x3", {1, 12, 12, 8}), b.cst("w3", {3, 3, 8})},
                  {b.val("y3", {1, 10, 10, 8})});
  EXPECT_EQ(multiply_accumulates(*dw), 800u * 9u);
  Node* qc = b.op("KilnQConv2D", "qc", {b.input("x4", {1, 12, 12, 4}), b.cst("w4", {8, 3, 3, 4})},
                  {b.val("y4", {1, 10, 10, 8})});
  EXPECT_EQ(multiply_accumulates(*qc), 800u * 36u);
}

TEST(OpSummary, MatrixProductMacsAreMTimesNTimesK) {
  GraphBuilder b;
  Node* mm = b.op("MatMul", "mm", {b.input("a", {2, 5, 7}), b.cst("b", {7, 3})}, {b.val("y", {2, 5, 3})});
  EXPECT_EQ(multiply_accumulates(*mm), 2u * 5u * 3u * 7u);
  Node* gemm = b.op("Gemm", "g", {b.input("a2", {4, 6}), b.cst("b2", {6, 9})}, {b.val("y2", {4, 9})});
  EXPECT_EQ(multiply_accumulates(*gemm), 4u * 9u * 6u);
  // transA: A is [K, M].
  Node* gemm_t = b.op("Gemm", "gt", {b.input("a3", {6, 4}), b.cst("b3", {6, 9})}, {b.val("y3", {4, 9})});
  gemm_t->attrs["transA"] = int64_t{1};
  EXPECT_EQ(multiply_accumulates(*gemm_t), 4u * 9u * 6u);
  Node* fc = b.op("KilnQFullyConnected", "fc", {b.input("x", {1, 640}), b.cst("w", {128, 640})}, {b.val("y4", {1, 128})});
  EXPECT_EQ(multiply_accumulates(*fc), 128u * 640u);
}

TEST(OpSummary, OtherOpsHaveNoMacs) {
  GraphBuilder b;
  Node* relu = b.op("Relu", "r", {b.input("x", {1, 8})}, {b.val("y", {1, 8})});
  EXPECT_EQ(multiply_accumulates(*relu), 0u);
  Node* add = b.op("Add", "a", {b.input("x2", {1, 8}), b.cst("c", {1, 8})}, {b.val("y2", {1, 8})});
  EXPECT_EQ(multiply_accumulates(*add), 0u);
}

}  // namespace
}  // namespace kiln
