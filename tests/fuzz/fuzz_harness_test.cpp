// The fuzz harness's options must let a valid model through every stage: a
// harness that rejects every input (an option the driver refuses, say) would fuzz
// the importer alone and report nothing wrong.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_compile.h"
#include "name_mutations.h"

namespace {

using kiln::fuzz::compile_input;
using kiln::fuzz::Format;
using kiln::fuzz::Outcome;

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

TEST(FuzzHarness, ValidOnnxModelCompilesThroughEmission) {
  const auto bytes = read_file(KILN_SOURCE_DIR "/examples/cnn/model.onnx");
  std::string error;
  EXPECT_EQ(compile_input(bytes.data(), bytes.size(), Format::Onnx, &error), Outcome::Compiled) << error;
}

TEST(FuzzHarness, ValidTfliteModelCompilesThroughEmission) {
  const auto bytes = read_file(KILN_SOURCE_DIR "/tests/tflite/models/float_cnn.tflite");
  std::string error;
  EXPECT_EQ(compile_input(bytes.data(), bytes.size(), Format::Tflite, &error), Outcome::Compiled) << error;
}

TEST(FuzzHarness, EachTargetLeavesTheOtherFormatAlone) {
  const auto onnx = read_file(KILN_SOURCE_DIR "/examples/cnn/model.onnx");
  const auto tflite = read_file(KILN_SOURCE_DIR "/tests/tflite/models/float_cnn.tflite");
  EXPECT_EQ(compile_input(onnx.data(), onnx.size(), Format::Tflite), Outcome::OtherFormat);
  EXPECT_EQ(compile_input(tflite.data(), tflite.size(), Format::Onnx), Outcome::OtherFormat);
}

TEST(FuzzHarness, TruncatedModelIsRejectedWithAMessage) {
  auto bytes = read_file(KILN_SOURCE_DIR "/examples/cnn/model.onnx");
  bytes.resize(bytes.size() / 2);
  std::string error;
  EXPECT_EQ(compile_input(bytes.data(), bytes.size(), Format::Onnx, &error), Outcome::Rejected);
  EXPECT_FALSE(error.empty());
}

// Every name mutation kind on both formats' valid models: each mutated model either
// compiles with names the C rule allows or is refused in one clean line (the
// oracle in compile_input throws otherwise).
TEST(FuzzHarness, NameMutationsCompileOrAreRefusedCleanly) {
  const auto onnx = read_file(KILN_SOURCE_DIR "/examples/cnn/model.onnx");
  const auto tflite = read_file(KILN_SOURCE_DIR "/tests/tflite/models/float_data_movement.tflite");
  int compiled = 0, rejected = 0;
  for (uint32_t seed = 0; seed < 3 * 6 * 4; ++seed) {
    auto m = onnx;
    ASSERT_TRUE(kiln::fuzz::mutate_onnx_name(m, seed));
    ASSERT_NE(m, onnx) << seed;
    (compile_input(m.data(), m.size(), Format::Onnx) == Outcome::Compiled ? compiled : rejected)++;
    auto t = tflite;
    if (kiln::fuzz::mutate_tflite_name(t, seed))
      (compile_input(t.data(), t.size(), Format::Tflite) == Outcome::Compiled ? compiled : rejected)++;
  }
  EXPECT_GT(compiled, 0);
}

}  // namespace
