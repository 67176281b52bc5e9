// ONNX Loop, imported as a node with an IR body, is lowered by the control-flow pass
// (controlflow/control_flow.h), which runs first in the pipeline: unrolled to a static
// number of steps, KilnSelect freezing the loop-carried values once the condition
// is false, KilnGuard checking a run-time trip count against the declared length
// of the scan outputs, and one-line errors naming the node for what cannot be static.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "../support/expect_contains.h"
#include "controlflow/control_flow.h"
#include "driver/pipeline.h"
#include "onnx/node_shape_inference.h"
#include "onnx/onnx_importer.h"
#include "model_builder.h"
#include "util/error.h"

namespace kiln {
namespace {

using testing::Dim;
using testing::ModelBuilder;
using testing::TempDir;

// Import, then the control-flow pass as the pipeline runs it: first, then (no
// folding here) once the graph has settled, when a Loop whose trip count or
// condition is not known yet is unrolled as it stands.
std::unique_ptr<Graph> import_and_lower(const std::filesystem::path& model) {
  auto g = import_onnx(model);
  ControlFlowOptions cf;
  cf.infer_shapes = infer_node_shapes;
  lower_control_flow(*g, false, cf);
  lower_control_flow(*g, true, cf);
  return g;
}

std::map<std::string, int> op_counts(const Graph& g) {
  std::map<std::string, int> n;
  for (const auto& node : g.nodes) ++n[node->op_type];
  return n;
}

// The constant operand of the graph's only Add (the steps of `x + w`, folded).
std::vector<float> added_constant(const Graph& g) {
  std::vector<float> r;
  for (const auto& n : g.nodes)
    if (n->op_type == "Add") {
      if (!r.empty()) return {};
      for (const Value* in : n->inputs)
        if (in && in->constant)
          for (int64_t i = 0; i < in->constant->num_elements(); ++i) r.push_back(float(in->constant->as_double(i)));
    }
  return r;
}

std::string import_error(const std::filesystem::path& model) {
  try {
    import_and_lower(model);
  } catch (const CompileError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    return m;
  }
  ADD_FAILURE() << "expected a CompileError";
  return "";
}

// Body (i, cond_in, x_in[2]) -> (cond_out, x_out = x_in + w [, scan = x_out]) with
// cond_out = cond_in (never stops) or ReduceMax(x_out) < limit (limit from the
// enclosing graph).
onnx::GraphProto body(bool data_dependent_cond, bool with_scan) {
  ModelBuilder b;
  auto* g = b.graph();
  g->set_name("body");
  ModelBuilder::set_type(g->add_input(), "i", onnx::TensorProto::INT64, {});
  ModelBuilder::set_type(g->add_input(), "cond_in", onnx::TensorProto::BOOL, {});
  ModelBuilder::set_type(g->add_input(), "x_in", onnx::TensorProto::FLOAT, {int64_t(2)});
  b.node("Add", {"x_in", "w"}, {"x_out"});
  if (data_dependent_cond) {
    auto* r = b.node("ReduceMax", {"x_out"}, {"x_max"});
    ModelBuilder::attr_int(r, "keepdims", 0);
    b.node("Less", {"x_max", "limit"}, {"cond_out"});
  } else {
    b.node("Identity", {"cond_in"}, {"cond_out"});
  }
  ModelBuilder::set_type(g->add_output(), "cond_out", onnx::TensorProto::BOOL, {});
  ModelBuilder::set_type(g->add_output(), "x_out", onnx::TensorProto::FLOAT, {int64_t(2)});
  if (with_scan) {
    b.node("Identity", {"x_out"}, {"scan"});
    ModelBuilder::set_type(g->add_output(), "scan", onnx::TensorProto::FLOAT, {int64_t(2)});
  }
  return *g;
}

void add_loop(ModelBuilder& m, const std::vector<std::string>& ins, const std::vector<std::string>& outs,
              const onnx::GraphProto& b) {
  auto* n = m.node("Loop", ins, outs, "my_loop");
  auto* a = n->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = b;
}

ModelBuilder base_model() {
  ModelBuilder m;
  m.input("x0", {int64_t(2)}).input("limit", {});
  m.initializer(ModelBuilder::float_typed("w", {2}, {1, 2}));
  return m;
}

// Import keeps the Loop as one node whose body is an IR graph (no protobuf after
// import): the body's formal inputs, its outputs, and the outer values it reads as
// captures the node takes as its last inputs.
TEST(ImportLoop, BodyIsAnIrGraphHeldByTheNode) {
  TempDir dir("loop");
  auto m = base_model();
  m.input("go", {}, onnx::TensorProto::BOOL).output("x", {int64_t(2)});
  m.initializer(ModelBuilder::int64_typed("M", {}, {3}));
  add_loop(m, {"M", "go", "x0"}, {"x"}, body(true, false));
  auto g = import_onnx(m.write(dir / "m.onnx"));
  const Node* loop = nullptr;
  for (const auto& n : g->nodes)
    if (n->op_type == "Loop") loop = n.get();
  ASSERT_NE(loop, nullptr);
  const Graph* b = loop->attr_graph("body");
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->inputs.size(), 3u);
  EXPECT_EQ(b->inputs[2]->name, "x_in");
  EXPECT_EQ(b->inputs[2]->shape, (Shape{2}));
  ASSERT_EQ(b->outputs.size(), 2u);
  EXPECT_EQ(b->outputs[0]->name, "cond_out");
  std::vector<std::string> captures;
  for (const Value* c : b->captures) captures.push_back(c->name);
  std::sort(captures.begin(), captures.end());
  EXPECT_EQ(captures, (std::vector<std::string>{"limit", "w"}));
  // M, go, x0, then the captured values in the order of the node's "captured".
  EXPECT_EQ(loop->own_input_count(), 3u);
  ASSERT_EQ(loop->inputs.size(), 5u);
  const auto& names = std::get<std::vector<std::string>>(loop->attrs.at("captured"));
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(loop->inputs[3]->name, names[0]);
  EXPECT_EQ(loop->inputs[4]->name, names[1]);
  EXPECT_TRUE(loop->inputs[3]->is_graph_input);  // limit
  EXPECT_TRUE(loop->inputs[4]->is_constant());   // w
}

TEST(ImportLoop, ConstantTripCountWithEarlyExitFreezesTheState) {
  TempDir dir("loop");
  auto m = base_model();
  m.input("go", {}, onnx::TensorProto::BOOL).output("x", {int64_t(2)});
  m.initializer(ModelBuilder::int64_typed("M", {}, {3}));
  add_loop(m, {"M", "go", "x0"}, {"x"}, body(true, false));
  auto g = import_and_lower(m.write(dir / "m.onnx"));
  auto ops = op_counts(*g);
  EXPECT_EQ(ops.count("Loop"), 0u);
  EXPECT_EQ(ops["Add"], 3);         // one body per step
  EXPECT_EQ(ops["KilnSelect"], 3);  // the state after each step: body output or frozen
  EXPECT_EQ(ops["And"], 2);  // active_{t+1} = active_t && cond_out_t; none after the last step (t+1 < M is false)
  EXPECT_EQ(ops.count("KilnGuard"), 0u);
  // The condition of the first step is the graph's `go`.
  for (const auto& n : g->nodes)
    if (n->op_type == "KilnSelect" && n->name.find("step0") != std::string::npos)
      EXPECT_EQ(n->inputs[0]->name, "go");
}

TEST(ImportLoop, StaticLoopStacksScanOutputsWithoutSelects) {
  TempDir dir("loop");
  auto m = base_model();
  m.output("x", {int64_t(2)}).output("ys", {int64_t(4), int64_t(2)});
  // M = Cast(Ceil(7 / 2)) = 4, folded at import; cond absent.
  m.initializer(ModelBuilder::float_typed("seven", {}, {7}));
  m.initializer(ModelBuilder::float_typed("two", {}, {2}));
  m.node("Div", {"seven", "two"}, {"q"});
  m.node("Ceil", {"q"}, {"qc"});
  ModelBuilder::attr_int(m.node("Cast", {"qc"}, {"M"}), "to", onnx::TensorProto::INT64);
  add_loop(m, {"M", "", "x0"}, {"x", "ys"}, body(false, true));
  auto g = import_and_lower(m.write(dir / "m.onnx"));
  auto ops = op_counts(*g);
  EXPECT_EQ(ops["Add"], 4);
  EXPECT_EQ(ops.count("KilnSelect"), 0u);
  EXPECT_EQ(ops.count("KilnGuard"), 0u);
  ASSERT_EQ(ops["Concat"], 1);
  Value* ys = g->find_value("ys");
  ASSERT_NE(ys, nullptr);
  EXPECT_EQ(ys->shape, (Shape{4, 2}));
  EXPECT_EQ(ys->producer->op_type, "Concat");
  EXPECT_EQ(ys->producer->inputs.size(), 4u);
}

TEST(ImportLoop, RunTimeTripCountIsCheckedAgainstTheDeclaredScanLength) {
  TempDir dir("loop");
  auto m = base_model();
  m.input("M", {}, onnx::TensorProto::INT64).output("ys", {int64_t(3), int64_t(2)});
  add_loop(m, {"M", "", "x0"}, {"x", "ys"}, body(false, true));
  auto g = import_and_lower(m.write(dir / "m.onnx"));
  auto ops = op_counts(*g);
  EXPECT_EQ(ops["Add"], 3);
  EXPECT_EQ(ops["KilnGuard"], 2);  // both outputs (the final state too)
  EXPECT_EQ(ops.count("KilnSelect"), 0u);
  EXPECT_EQ(g->find_value("ys")->producer->op_type, "KilnGuard");
}

TEST(ImportLoop, RunTimeTripCountWithoutScanOutputsNamesTheNode) {
  TempDir dir("loop");
  auto m = base_model();
  m.input("M", {}, onnx::TensorProto::INT64).output("x", {int64_t(2)});
  add_loop(m, {"M", "", "x0"}, {"x"}, body(false, false));
  std::string e = import_error(m.write(dir / "m.onnx"));
  EXPECT_CONTAINS(e, "Loop 'my_loop'");
  EXPECT_CONTAINS(e, "trip count M ('M') is not a compile-time constant");
}

TEST(ImportLoop, EarlyExitWithScanOutputsOfUnknownLengthIsADataDependentShape) {
  TempDir dir("loop");
  auto m = base_model();
  m.input("go", {}, onnx::TensorProto::BOOL).output("x", {int64_t(2)});
  m.initializer(ModelBuilder::int64_typed("M", {}, {3}));
  m.node("Identity", {"ys"}, {"ys_out"});
  m.output("ys_out", {"N", int64_t(2)});
  add_loop(m, {"M", "go", "x0"}, {"x", "ys"}, body(true, true));
  // The Identity comes first in the file only for the builder; move the Loop before it.
  auto* nodes = m.graph()->mutable_node();
  nodes->SwapElements(0, 1);
  std::string e = import_error(m.write(dir / "m.onnx"));
  EXPECT_CONTAINS(e, "Loop 'my_loop'");
  EXPECT_CONTAINS(e, "scan output 'ys' has a data-dependent length");
}

// M = Shape(x)[0] is only a constant once folding has run: the Loop waits (the
// first lowering leaves it a node), and inside the settle fixed point it is
// unrolled to exactly M steps, without the run-time checks an unknown M needs.
TEST(ImportLoop, TripCountFromShapeIsDecidedAfterFolding) {
  TempDir dir("loop");
  auto m = base_model();
  m.input("shaped", {int64_t(3), int64_t(5)}).output("x", {int64_t(2)});
  m.initializer(ModelBuilder::int64_typed("zero", {}, {0}));
  m.node("Shape", {"shaped"}, {"shape"});
  ModelBuilder::attr_int(m.node("Gather", {"shape", "zero"}, {"M"}), "axis", 0);
  add_loop(m, {"M", "", "x0"}, {"x"}, body(false, false));
  auto g = import_onnx(m.write(dir / "m.onnx"));
  ControlFlowOptions cf;
  cf.infer_shapes = infer_node_shapes;
  lower_control_flow(*g, false, cf);
  EXPECT_EQ(op_counts(*g)["Loop"], 1);  // waits for folding
  settle_graph(*g, true, FoldOptions{});
  auto ops = op_counts(*g);
  EXPECT_EQ(ops.count("Loop"), 0u);
  EXPECT_EQ(ops.count("KilnSelect"), 0u);
  EXPECT_EQ(ops.count("KilnGuard"), 0u);
  EXPECT_EQ(added_constant(*g), (std::vector<float>{3, 6}));  // 3 steps of + w, folded into one Add
}

// A stop condition folding decides (cond_out = i + 1 < Shape(x)[1]): the loop
// unrolls to the steps it runs, no run-time "still active" selects.
TEST(ImportLoop, StopConditionDecidedByFoldingLeavesNoSelects) {
  TempDir dir("loop");
  ModelBuilder b;
  auto* g = b.graph();
  g->set_name("body");
  ModelBuilder::set_type(g->add_input(), "i", onnx::TensorProto::INT64, {});
  ModelBuilder::set_type(g->add_input(), "cond_in", onnx::TensorProto::BOOL, {});
  ModelBuilder::set_type(g->add_input(), "x_in", onnx::TensorProto::FLOAT, {int64_t(2)});
  b.node("Add", {"x_in", "w"}, {"x_out"});
  b.node("Add", {"i", "one"}, {"next"});
  b.node("Less", {"next", "k"}, {"cond_out"});
  ModelBuilder::set_type(g->add_output(), "cond_out", onnx::TensorProto::BOOL, {});
  ModelBuilder::set_type(g->add_output(), "x_out", onnx::TensorProto::FLOAT, {int64_t(2)});
  auto m = base_model();
  m.input("shaped", {int64_t(3), int64_t(4)}).output("x", {int64_t(2)});
  m.initializer(ModelBuilder::int64_typed("one", {}, {1}));
  m.initializer(ModelBuilder::int64_typed("M", {}, {10}));
  m.node("Shape", {"shaped"}, {"shape"});
  ModelBuilder::attr_int(m.node("Gather", {"shape", "one"}, {"k"}), "axis", 0);
  add_loop(m, {"M", "", "x0"}, {"x"}, *g);
  auto graph = import_onnx(m.write(dir / "m.onnx"));
  settle_graph(*graph, true, FoldOptions{});
  auto ops = op_counts(*graph);
  EXPECT_EQ(ops.count("Loop"), 0u);
  EXPECT_EQ(ops.count("KilnSelect"), 0u);
  EXPECT_EQ(added_constant(*graph), (std::vector<float>{4, 8}));  // k = 4 steps of + w
}

TEST(ImportLoop, UnrollLimit) {
  TempDir dir("loop");
  auto m = base_model();
  m.output("x", {int64_t(2)});
  m.initializer(ModelBuilder::int64_typed("M", {}, {1000000}));
  add_loop(m, {"M", "", "x0"}, {"x"}, body(false, false));
  std::string e = import_error(m.write(dir / "m.onnx"));
  EXPECT_CONTAINS(e, "Loop 'my_loop'");
  EXPECT_CONTAINS(e, "exceeds Kiln's limit");
}

}  // namespace
}  // namespace kiln
