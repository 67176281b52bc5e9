// State kept between runs (tflite/state.cpp, bufferize/state.cpp, the emitter's
// reset): TFLite's resource variables and an LSTM's variable state arrive as the
// graph's StateVariables, and the compiled module keeps them in the `state` pool,
// computes a state's new value into its bytes when the order allows, writes it back
// otherwise, and has kiln_<mod>_reset(); a model without state has none of it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "driver/compile.h"
#include "support/expect_contains.h"
#include "tflite/tflite_importer.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
const fs::path kModels = fs::path(KILN_TFLITE_TESTS) / "models";

std::vector<uint8_t> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

CompiledModule compile(const std::string& model, CompileOptions o = {}) {
  o.module_name = "stream";
  return compile_model_in_memory(bytes_of(kModels / model), o);
}

TEST(TfliteState, ResourceVariablesBecomeStateAfterTheModelsInputsAndOutputs) {
  const auto g = import_tflite(kModels / "float_accumulator.tflite");
  ASSERT_EQ(g->states.size(), 2u);
  EXPECT_EQ(g->states[0].name, "stream/sum");  // container/shared_name
  EXPECT_EQ(g->states[1].name, "count");
  ASSERT_EQ(g->inputs.size(), 3u);  // frame, then each state's start value
  EXPECT_EQ(g->inputs[0]->name, "frame");
  EXPECT_EQ(g->states[0].input, 1u);
  EXPECT_EQ(g->states[1].input, 2u);
  ASSERT_EQ(g->outputs.size(), 4u);  // half_sum, frames, then each state's end value
  ASSERT_TRUE(g->states[0].output && g->states[1].output);
  EXPECT_EQ(g->outputs[*g->states[0].output]->name, "sum_after");
  // The frame count is a model output and the state's end value: one value, twice.
  EXPECT_EQ(g->outputs[*g->states[1].output], g->outputs[1]);
  for (const auto& s : g->states)
    for (double v : s.initial->to_doubles()) EXPECT_EQ(v, 0.0);
  EXPECT_EQ(g->state_of_input(0), nullptr);
  EXPECT_EQ(g->state_of_output(1), nullptr);
  EXPECT_EQ(g->state_of_output(3), &g->states[1]);
}

TEST(TfliteState, TheFloatLstmStartsFromItsStateAndAssignsItsFinalState) {
  const auto g = import_tflite(kModels / "float_lstm_stream.tflite");
  ASSERT_EQ(g->states.size(), 2u);
  EXPECT_EQ(g->states[0].name, "hidden_state");
  EXPECT_EQ(g->states[1].name, "cell_state");
  const Node* lstm = nullptr;
  for (const auto& n : g->nodes)
    if (n->op_type == "LSTM") lstm = n.get();
  ASSERT_NE(lstm, nullptr);
  ASSERT_GE(lstm->inputs.size(), 7u);
  ASSERT_NE(lstm->input(5), nullptr);  // initial_h: a view of the state's start value
  ASSERT_NE(lstm->input(6), nullptr);
  EXPECT_EQ(lstm->input(5)->producer->input(0), g->inputs[g->states[0].input]);
  ASSERT_EQ(lstm->outputs.size(), 3u);  // Y, Y_h, Y_c
  EXPECT_EQ(g->outputs[*g->states[0].output]->producer->input(0), lstm->outputs[1]);
  EXPECT_EQ(g->outputs[*g->states[1].output]->producer->input(0), lstm->outputs[2]);
}

TEST(TfliteState, TheModuleKeepsStateInItsOwnPoolAndResetsIt) {
  const CompiledModule m = compile("float_accumulator.tflite");
  const std::string& h = m.files.at("metadata.h");
  const std::string& ops = m.files.at("operators.c");
  // The API has the model's input and outputs only; the state has a size macro each.
  ASSERT_EQ(m.inputs.size(), 1u);
  ASSERT_EQ(m.outputs.size(), 2u);
  EXPECT_CONTAINS(h, "#define KILN_STREAM_STATE_STREAM_SUM_SIZE 16u /* float32 [1,4] 'stream/sum'");
  EXPECT_CONTAINS(h, "#define KILN_STREAM_STATE_COUNT_SIZE 4u");
  EXPECT_CONTAINS(h, "#define KILN_STREAM_STATE_WORKSPACE_SIZE 20u /* internal pool 'state'");
  EXPECT_CONTAINS(h, "int32_t kiln_stream_reset(const struct kiln_stream_workspaces* workspaces);");
  EXPECT_CONTAINS(ops, "int32_t kiln_stream_reset(const struct kiln_stream_workspaces* workspaces) {");
  // The running sum is computed into the state's bytes (ADD in place over the value
  // it read); the count, also a model output, is copied back after the last operator.
  EXPECT_EQ(ops.find("write back state 'stream/sum'"), std::string::npos) << ops;
  EXPECT_CONTAINS(ops, "write back state 'count'");
  // Reset fills both states with zeros through the internal state pool.
  EXPECT_CONTAINS(ops, "uint8_t* const kiln_ws_state = kiln_stream_state_workspace;");
  EXPECT_CONTAINS(ops, "] = (uint8_t)0u;");
  bool state_pool = false;
  for (const auto& p : m.pools) state_pool |= p.name == "state" && p.is_workspace && !p.is_user_pool;
  EXPECT_TRUE(state_pool);
}

TEST(TfliteState, AUserStatePoolIsPassedToRunAndReset) {
  CompileOptions o;
  planner::Pool state;
  state.name = "state";
  state.capacity = 64;
  o.workspace_pools = {state};
  const CompiledModule m = compile("float_lstm_stream.tflite", o);
  const std::string& h = m.files.at("metadata.h");
  const std::string& ops = m.files.at("operators.c");
  EXPECT_CONTAINS(h, "uint8_t* state; /* at least KILN_STREAM_STATE_WORKSPACE_SIZE bytes */");
  // The activations get an internal pool: the user's only pool holds state alone.
  // Two states of 20 bytes, each 16-byte aligned.
  EXPECT_CONTAINS(h, "#define KILN_STREAM_INTERNAL_WORKSPACE_SIZE");
  EXPECT_CONTAINS(h, "#define KILN_STREAM_STATE_WORKSPACE_SIZE 52u /* user pool 'state', capacity 64 */");
  EXPECT_CONTAINS(ops, "if ((status = kiln_check_ptr(workspaces->state, 16u)) != KILN_OK) return status;");
  EXPECT_CONTAINS(ops, "uint8_t* const kiln_ws_state = workspaces->state;");
  // The LSTM reads its initial state and writes its final one in one call: the
  // final state goes back after it.
  EXPECT_CONTAINS(ops, "write back state 'hidden_state'");
  EXPECT_CONTAINS(ops, "write back state 'cell_state'");
}

TEST(TfliteState, AModelWithoutStateHasNoReset) {
  const CompiledModule m = compile("float_cnn.tflite");
  for (const auto& [name, text] : m.files) EXPECT_EQ(text.find("reset"), std::string::npos) << name;
  for (const auto& p : m.pools) EXPECT_NE(p.name, "state");
}

}  // namespace
}  // namespace kiln
