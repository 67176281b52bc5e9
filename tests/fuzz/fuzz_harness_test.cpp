// The fuzz harness's options must let a valid model through every stage: a
// harness that rejects every input (an option the driver refuses, say) would fuzz
// the importer alone and report nothing wrong.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "emit/c_names.h"
#include "fuzz_compile.h"
#include "name_mutations.h"
#include "tflite/tflite_schema_generated.h"

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
  for (uint32_t seed = 0; seed < 3 * kiln::fuzz::kNameMutationKinds * 4; ++seed) {
    auto m = onnx;
    ASSERT_TRUE(kiln::fuzz::mutate_onnx_name(m, seed));
    ASSERT_NE(m, onnx) << seed;
    (compile_input(m.data(), m.size(), Format::Onnx) == Outcome::Compiled ? compiled : rejected)++;
    auto t = tflite;
    if (kiln::fuzz::mutate_tflite_name(t, seed))
      (compile_input(t.data(), t.size(), Format::Tflite) == Outcome::Compiled ? compiled : rejected)++;
  }
  EXPECT_GT(compiled, 0);
  EXPECT_GT(rejected, 0);
}

std::vector<std::string> onnx_io_names(const std::vector<uint8_t>& bytes) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromArray(bytes.data(), int(bytes.size())));
  std::vector<std::string> names;
  for (const auto& vi : m.graph().input()) names.push_back(vi.name());
  for (const auto& vi : m.graph().output()) names.push_back(vi.name());
  return names;
}

// The tensor names of the first subgraph; empty when the buffer does not verify.
std::vector<std::string> tflite_names(const std::vector<uint8_t>& bytes) {
  flatbuffers::Verifier v(bytes.data(), bytes.size());
  if (!kiln::tflite_fb::VerifyModelBuffer(v)) return {};
  std::vector<std::string> names;
  for (const auto* t : *kiln::tflite_fb::GetModel(bytes.data())->subgraphs()->Get(0)->tensors())
    names.push_back(t->name() ? t->name()->str() : "");
  return names;
}

std::string upper(std::string s) {
  for (auto& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// What each kind must give: a new name `n` with its property; a collision is with
// another name of the mutated model (`after`).
bool has_property(uint32_t kind, const std::string& n, const std::vector<std::string>& after) {
  auto some_other = [&](const std::function<bool(const std::string&)>& same) {
    return std::any_of(after.begin(), after.end(), [&](const std::string& b) { return b != n && same(b); });
  };
  switch (kind) {
    case 0: return kiln::is_reserved_c_name(n) || n == "main" || n == "memcpy" || n == "malloc" || n == "printf" ||
                   n == "stdin" || n == "tanh" || n == "kiln_run" || n == "template";
    case 1: return some_other([&](const std::string& b) { return upper(b) == upper(n); }) || n.find('\x01') != n.npos;
    case 2: return some_other([&](const std::string& b) { return kiln::c_identifier(b) == kiln::c_identifier(n); });
    case 3: return std::any_of(n.begin(), n.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
    case 4: return n.size() == 10240;
    case 5: return n.size() > 1 && n[0] == '_' && !std::islower(static_cast<unsigned char>(n[1]));
    case 6: return n.find_first_of("*\"\\?#/") != n.npos;
    default: return n.find_first_not_of(' ') == n.npos;
  }
}

// Each kind renames one name of both formats' models to a name of its kind (the
// TFLite one in place or, at another length, appended: the buffer still verifies).
TEST(FuzzHarness, EachNameMutationKindGivesItsKindOfName) {
  const auto onnx = read_file(KILN_SOURCE_DIR "/examples/cnn/model.onnx");
  const auto tflite = read_file(KILN_SOURCE_DIR "/tests/tflite/models/float_data_movement.tflite");
  const auto onnx_before = onnx_io_names(onnx);
  const auto tflite_before = tflite_names(tflite);
  ASSERT_FALSE(tflite_before.empty());
  for (uint32_t kind = 0; kind < kiln::fuzz::kNameMutationKinds; ++kind) {
    int onnx_hits = 0, tflite_hits = 0;
    for (uint32_t seed = 0; seed < 3 * kiln::fuzz::kNameMutationKinds * 8; ++seed) {
      if (kiln::fuzz::name_mutation_kind(seed) != kind) continue;
      auto m = onnx;
      ASSERT_TRUE(kiln::fuzz::mutate_onnx_name(m, seed));
      const auto onnx_after = onnx_io_names(m);
      for (const auto& n : onnx_after)
        if (std::find(onnx_before.begin(), onnx_before.end(), n) == onnx_before.end() && has_property(kind, n, onnx_after))
          ++onnx_hits;
      auto t = tflite;
      if (!kiln::fuzz::mutate_tflite_name(t, seed)) continue;
      const auto names = tflite_names(t);
      ASSERT_EQ(names.size(), tflite_before.size()) << "kind " << kind << " seed " << seed << ": the buffer no longer verifies";
      for (const auto& n : names)
        if (std::find(tflite_before.begin(), tflite_before.end(), n) == tflite_before.end() && has_property(kind, n, names))
          ++tflite_hits;
    }
    EXPECT_GT(onnx_hits, 0) << "kind " << kind;
    EXPECT_GT(tflite_hits, 0) << "kind " << kind;
  }
}

}  // namespace
