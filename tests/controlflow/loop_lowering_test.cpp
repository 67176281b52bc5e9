// ONNX Loop, imported as a node with an IR body (the first test checks that form),
// is lowered by the control-flow pass (controlflow/control_flow.h, Loop parts in
// controlflow/loop_*.cpp): kept as a loop region (KilnLoopBegin, the body once,
// KilnLoopEnd) or, with ControlFlowOptions::unroll_loops, unrolled to a static
// number of steps, KilnSelect freezing the loop-carried values once the condition
// is false, KilnGuard checking a run-time trip count against the declared length
// of the scan outputs, and one-line errors naming the node for what cannot be static.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "../onnx/model_builder.h"
#include "../support/expect_contains.h"
#include "controlflow/control_flow.h"
#include "driver/pipeline.h"
#include "onnx/node_shape_inference.h"
#include "onnx/onnx_importer.h"
#include "util/error.h"

namespace kiln {
namespace {

using testing::Dim;
using testing::ModelBuilder;
using testing::TempDir;

// Import, then the control-flow pass as the pipeline runs it: first, then (no
// folding here) once the graph has settled, when a Loop whose trip count or
// condition is not known yet is lowered as it stands. `unroll`: every Loop unrolled
// (the tests of the unrolled form), else kept as a region where it can be.
std::unique_ptr<Graph> import_and_lower(const std::filesystem::path& model, bool unroll = true) {
  auto g = import_onnx(model);
  ControlFlowOptions cf;
  cf.infer_shapes = infer_node_shapes;
  cf.unroll_loops = unroll;
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

std::string import_error(const std::filesystem::path& model, bool unroll = true) {
  try {
    import_and_lower(model, unroll);
  } catch (const CompileError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    return m;
  }
  ADD_FAILURE() << "expected a CompileError";
  return "";
}

// A Loop body named "body" with the inputs (i, cond_in, x_in[2]); the caller adds
// its nodes and outputs.
onnx::GraphProto* start_body(ModelBuilder& b) {
  auto* g = b.graph();
  g->set_name("body");
  ModelBuilder::set_type(g->add_input(), "i", onnx::TensorProto::INT64, {});
  ModelBuilder::set_type(g->add_input(), "cond_in", onnx::TensorProto::BOOL, {});
  ModelBuilder::set_type(g->add_input(), "x_in", onnx::TensorProto::FLOAT, {int64_t(2)});
  return g;
}

// Body (i, cond_in, x_in[2]) -> (cond_out, x_out = x_in + w [, scan = x_out]) with
// cond_out = cond_in (never stops) or ReduceMax(x_out) < limit (limit from the
// enclosing graph).
onnx::GraphProto body(bool data_dependent_cond, bool with_scan) {
  ModelBuilder b;
  auto* g = start_body(b);
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
TEST(LoopLowering, BodyIsAnIrGraphHeldByTheNode) {
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

TEST(LoopLowering, ConstantTripCountWithEarlyExitFreezesTheState) {
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

TEST(LoopLowering, StaticLoopStacksScanOutputsWithoutSelects) {
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

TEST(LoopLowering, RunTimeTripCountIsCheckedAgainstTheDeclaredScanLength) {
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

TEST(LoopLowering, RunTimeTripCountWithoutScanOutputsNamesTheNode) {
  TempDir dir("loop");
  auto m = base_model();
  m.input("M", {}, onnx::TensorProto::INT64).output("x", {int64_t(2)});
  add_loop(m, {"M", "", "x0"}, {"x"}, body(false, false));
  std::string e = import_error(m.write(dir / "m.onnx"));
  EXPECT_CONTAINS(e, "Loop 'my_loop'");
  EXPECT_CONTAINS(e, "trip count M ('M') is not a compile-time constant");
}

TEST(LoopLowering, EarlyExitWithScanOutputsOfUnknownLengthIsADataDependentShape) {
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
TEST(LoopLowering, TripCountFromShapeIsDecidedAfterFolding) {
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
  settle_graph(*g, true, FoldOptions{}, LoweringTarget{});
  auto ops = op_counts(*g);
  EXPECT_EQ(ops.count("Loop"), 0u);
  EXPECT_EQ(ops.count("KilnSelect"), 0u);
  EXPECT_EQ(ops.count("KilnGuard"), 0u);
  // A loop region whose trip count folding made the constant 3.
  ASSERT_EQ(ops["KilnLoopBegin"], 1);
  for (const auto& n : g->nodes)
    if (n->op_type == "KilnLoopBegin") {
      ASSERT_TRUE(n->input(0) && n->input(0)->constant);
      EXPECT_EQ(n->input(0)->constant->as_int64(0), 3);
    }
  EXPECT_EQ(ops["Add"], 1);  // the body, once
}

// A stop condition folding decides (cond_out = i + 1 < Shape(x)[1]): the loop
// unrolls to the steps it runs, no run-time "still active" selects.
TEST(LoopLowering, StopConditionDecidedByFoldingLeavesNoSelects) {
  TempDir dir("loop");
  ModelBuilder b;
  auto* g = start_body(b);
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
  settle_graph(*graph, true, FoldOptions{}, LoweringTarget{});
  auto ops = op_counts(*graph);
  EXPECT_EQ(ops.count("Loop"), 0u);
  EXPECT_EQ(ops.count("KilnSelect"), 0u);
  // A loop region (the stop depends on the iteration number, a run-time value in
  // the region) whose stop bound k folded to the constant 4.
  EXPECT_EQ(ops["KilnLoopBegin"], 1);
  EXPECT_EQ(ops["KilnLoopEnd"], 1);
  EXPECT_EQ(ops["Add"], 2);  // x + w and i + 1, once
  EXPECT_TRUE(graph->find_value("k") == nullptr || graph->find_value("k")->constant);
}

// A KilnSelect whose condition folding made constant (a frozen loop state once the
// stop is known) becomes an Identity of the chosen value; the pass counts it.
TEST(LoopLowering, SelectOnAConstantConditionBecomesAnIdentity) {
  Graph g;
  Value* a = g.add_value("a", DType::Float32, {2});
  Value* b = g.add_value("b", DType::Float32, {2});
  a->is_graph_input = b->is_graph_input = true;
  g.inputs = {a, b};
  Value* cond = g.add_value("cond", DType::Bool, {});
  cond->constant = Constant::from_bytes(DType::Bool, {}, {0});
  Value* y = g.add_value("y", DType::Float32, {2});
  y->is_graph_output = true;
  g.outputs = {y};
  g.add_node("KilnSelect", "sel", {cond, a, b}, {y});
  ControlFlowOptions cf;
  EXPECT_EQ(lower_control_flow(g, false, cf), 1u);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes.front()->op_type, "Identity");
  ASSERT_EQ(g.nodes.front()->inputs.size(), 1u);
  EXPECT_EQ(g.nodes.front()->inputs[0], b);
  EXPECT_TRUE(a->users.empty());
  EXPECT_TRUE(cond->users.empty());
  EXPECT_EQ(lower_control_flow(g, false, cf), 0u);  // settled
}

// The loop region (ir/loop_region.h): the body once between KilnLoopBegin and
// KilnLoopEnd, the scan outputs the End's, a run-time trip count allowed.
TEST(LoopLowering, RegionKeepsTheBodyOnce) {
  TempDir dir("loop");
  auto m = base_model();
  m.output("x", {int64_t(2)}).output("ys", {int64_t(7), int64_t(2)});
  m.initializer(ModelBuilder::int64_typed("M", {}, {7}));
  add_loop(m, {"M", "", "x0"}, {"x", "ys"}, body(false, true));
  auto g = import_and_lower(m.write(dir / "m.onnx"), /*unroll=*/false);
  auto ops = op_counts(*g);
  EXPECT_EQ(ops["Add"], 1);
  EXPECT_EQ(ops["KilnLoopBegin"], 1);
  EXPECT_EQ(ops["KilnLoopEnd"], 1);
  const Node* end = g->find_value("ys")->producer;
  ASSERT_EQ(end->op_type, "KilnLoopEnd");
  EXPECT_EQ(end->attr_int("scan_length", 0), 7);
  EXPECT_EQ(end->attr_int("check_length", 1), 0);
  EXPECT_EQ(g->find_value("x")->producer, end);
  // The Begin comes first, the body between, the End last.
  EXPECT_EQ(g->nodes.front()->op_type, "KilnLoopBegin");
  EXPECT_EQ(g->nodes.back()->op_type, "KilnLoopEnd");
  ASSERT_EQ(g->lowering_notes.size(), 1u);
  EXPECT_CONTAINS(g->lowering_notes[0], "Loop 'my_loop': a C loop");
}

TEST(LoopLowering, RegionTakesARunTimeTripCount) {
  TempDir dir("loop");
  auto m = base_model();
  m.input("M", {}, onnx::TensorProto::INT64).output("x", {int64_t(2)});
  add_loop(m, {"M", "", "x0"}, {"x"}, body(false, false));
  auto g = import_and_lower(m.write(dir / "m.onnx"), /*unroll=*/false);
  auto ops = op_counts(*g);
  EXPECT_EQ(ops["KilnLoopBegin"], 1);
  EXPECT_EQ(ops["Add"], 1);
  EXPECT_CONTAINS(g->lowering_notes.at(0), "trip count decided at run time");
}

TEST(LoopLowering, RegionTripCountLimit) {
  TempDir dir("loop");
  auto m = base_model();
  m.output("x", {int64_t(2)});
  m.initializer(ModelBuilder::int64_typed("M", {}, {2000000}));
  add_loop(m, {"M", "", "x0"}, {"x"}, body(false, false));
  std::string e = import_error(m.write(dir / "m.onnx"), /*unroll=*/false);
  EXPECT_CONTAINS(e, "Loop 'my_loop': the trip count 2000000 exceeds Kiln's limit of 1000000 iterations");
}

// A body whose shapes need the iteration number as a compile-time constant (a
// Range of length i + 1, summed) is unrolled, and the note says why.
TEST(LoopLowering, BodyNeedingTheIterationNumberAtCompileTimeIsUnrolled) {
  TempDir dir("loop");
  ModelBuilder b;
  auto* g = start_body(b);
  b.node("Add", {"i", "one"}, {"len"});
  b.node("Range", {"zero", "len", "one"}, {"r"});
  b.node("ReduceSum", {"r"}, {"rs"});
  ModelBuilder::attr_int(b.node("Cast", {"rs"}, {"rf"}), "to", onnx::TensorProto::FLOAT);
  b.node("Add", {"x_in", "rf"}, {"x_out"});
  b.node("Identity", {"cond_in"}, {"cond_out"});
  ModelBuilder::set_type(g->add_output(), "cond_out", onnx::TensorProto::BOOL, {});
  ModelBuilder::set_type(g->add_output(), "x_out", onnx::TensorProto::FLOAT, {int64_t(2)});
  auto m = base_model();
  m.output("x", {int64_t(2)});
  m.initializer(ModelBuilder::int64_typed("M", {}, {3}));
  m.initializer(ModelBuilder::int64_typed("one", {}, {1}));
  m.initializer(ModelBuilder::int64_typed("zero", {}, {0}));
  add_loop(m, {"M", "", "x0"}, {"x"}, *g);
  auto graph = import_and_lower(m.write(dir / "m.onnx"), /*unroll=*/false);
  auto ops = op_counts(*graph);
  EXPECT_EQ(ops.count("KilnLoopBegin"), 0u);
  EXPECT_EQ(ops["Range"], 3);
  ASSERT_EQ(graph->lowering_notes.size(), 1u);
  EXPECT_CONTAINS(graph->lowering_notes[0], "Loop 'my_loop': unrolled, 3 step(s)");
  EXPECT_CONTAINS(graph->lowering_notes[0], "depends on the iteration number");
}

TEST(LoopLowering, UnrollLimit) {
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
