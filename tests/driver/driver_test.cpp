// The whole pipeline in-process on a tiny CNN built in C++: compile_model's
// CompiledModule and output folder, and the memory plan behind it (every buffer
// placed, the independent verifier and an own overlap check agree).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../support/expect_contains.h"
#include "../onnx/model_builder.h"
#include "bufferize/bufferize.h"
#include "cli/pool_flags.h"
#include "driver/compile.h"
#include "driver/memory_plan.h"
#include "driver/pipeline.h"
#include "fold/fold.h"
#include "onnx/onnx_importer.h"
#include "lower/lowering.h"
#include "planner/pool_spec.h"
#include "util/error.h"
#include "util/process.h"

namespace kiln {
namespace {

using testing::ModelBuilder;
using testing::TempDir;
namespace fs = std::filesystem;

std::vector<float> ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * float(int(i % 7) - 3);
  return v;
}

// x[1,2,6,6] -> Conv 3x3 pad 1 (3 ch) -> Relu -> MaxPool 2x2 -> Flatten -> Gemm(4) -> Softmax -> y[1,4]
ModelBuilder tiny_cnn() {
  ModelBuilder m;
  m.input("x", {int64_t(1), int64_t(2), int64_t(6), int64_t(6)}).output("y", {int64_t(1), int64_t(4)});
  m.initializer(ModelBuilder::float_raw("w", {3, 2, 3, 3}, ramp(54, 0.1f)));
  m.initializer(ModelBuilder::float_raw("b", {3}, {0.1f, -0.2f, 0.3f}));
  m.initializer(ModelBuilder::float_raw("fc_w", {4, 27}, ramp(108, 0.05f)));
  m.initializer(ModelBuilder::float_raw("fc_b", {4}, {0, 1, 2, 3}));
  auto* conv = m.node("Conv", {"x", "w", "b"}, {"c"}, "conv1");
  ModelBuilder::attr_ints(conv, "pads", {1, 1, 1, 1});
  ModelBuilder::attr_ints(conv, "kernel_shape", {3, 3});
  m.node("Relu", {"c"}, {"r"}, "relu1");
  auto* pool = m.node("MaxPool", {"r"}, {"p"}, "pool1");
  ModelBuilder::attr_ints(pool, "kernel_shape", {2, 2});
  ModelBuilder::attr_ints(pool, "strides", {2, 2});
  m.node("Flatten", {"p"}, {"f"}, "flat");
  auto* gemm = m.node("Gemm", {"f", "fc_w", "fc_b"}, {"g"}, "fc");
  ModelBuilder::attr_int(gemm, "transB", 1);
  m.node("Softmax", {"g"}, {"y"}, "softmax");
  return m;
}

// Parameter bytes as the kernels read them: the Conv's 3x2x3x3 weights packed in a
// block of four output channels (one zero channel, 4 x 18 floats), its bias, the
// Gemm's 4x27 weights packed (one block of four rows) and its bias row.
constexpr uint64_t kWeightBytes = (4 * 18 + 3 + 108 + 4) * sizeof(float);

CompileOptions quiet_options(const fs::path& out, const std::string& name = "tiny") {
  CompileOptions o;
  o.module_name = name;
  o.output_dir = out;
  o.quiet = true;
  return o;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Driver, CompilesATinyCnnIntoAModuleFolder) {
  TempDir dir("driver");
  fs::path model = tiny_cnn().write(dir / "tiny.onnx");
  CompiledModule m = compile_model(model, quiet_options(dir / "out"));
  EXPECT_EQ(m.module_name, "tiny");
  EXPECT_EQ(m.dir, dir / "out");
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].name, "x");
  EXPECT_EQ(m.inputs[0].dtype, DType::Float32);
  EXPECT_EQ(m.inputs[0].shape, (std::vector<int64_t>{1, 2, 6, 6}));
  EXPECT_EQ(m.inputs[0].size_bytes, 288u);
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].name, "y");
  EXPECT_EQ(m.outputs[0].shape, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(m.outputs[0].size_bytes, 16u);

  // Internal pools (no pool flags): one workspace, one parameter pool holding the weights.
  int workspaces = 0, parameters = 0;
  for (const auto& p : m.pools) {
    EXPECT_FALSE(p.is_user_pool) << p.name;
    EXPECT_FALSE(p.size_macro.empty());
    if (p.is_workspace) {
      ++workspaces;
      EXPECT_GT(p.size_bytes, 0u);
    } else {
      ++parameters;
      EXPECT_GE(p.size_bytes, kWeightBytes);
    }
  }
  EXPECT_EQ(workspaces, 1);
  EXPECT_EQ(parameters, 1);

  for (const auto& f : {"metadata.h", "metadata.c", "module_internal.h"}) EXPECT_TRUE(fs::exists(m.dir / f)) << f;
  EXPECT_FALSE(m.sources.empty());
  for (const auto& s : m.sources) {
    EXPECT_TRUE(fs::exists(s)) << s;
    EXPECT_EQ(s.parent_path(), m.dir) << "sources are the module's own files, not the crt copy";
  }
  EXPECT_TRUE(fs::is_directory(m.crt_dir));
  EXPECT_TRUE(fs::exists(m.crt_dir / "include" / "kiln_crt.h"));
  const std::string h = slurp(m.dir / "metadata.h");
  EXPECT_CONTAINS(h, "kiln_tiny_run");
  EXPECT_CONTAINS(h, "kiln_tiny_inputs");
  EXPECT_CONTAINS(h, "kiln_tiny_outputs");
  EXPECT_CONTAINS(h, "kiln_tiny_model");
  // Every kernel of the model is called from the generated code.
  std::string all;
  for (const auto& s : m.sources) all += slurp(s);
  for (const char* k : {"kiln_conv2d_f32", "kiln_relu_f32", "kiln_gemm_f32"}) EXPECT_CONTAINS(all, k);
}

// Two buffers that are live at the same step and share a pool must not share bytes.
void expect_no_overlap(const BufferizedProgram& prog, const EmitPlan& plan) {
  for (size_t i = 0; i < prog.buffers.size(); ++i)
    for (size_t j = i + 1; j < prog.buffers.size(); ++j) {
      const Buffer &a = prog.buffers[i], &b = prog.buffers[j];
      if (plan.buffer_pool[i] < 0 || plan.buffer_pool[i] != plan.buffer_pool[j]) continue;
      if (a.size_bytes == 0 || b.size_bytes == 0) continue;
      const bool live_together = a.first < b.last && b.first < a.last;
      const bool bytes_overlap = plan.buffer_offset[i] < plan.buffer_offset[j] + b.size_bytes &&
                                 plan.buffer_offset[j] < plan.buffer_offset[i] + a.size_bytes;
      EXPECT_FALSE(live_together && bytes_overlap) << a.name << " and " << b.name << " overlap";
    }
}

// Every command runs one list of passes (driver/pipeline.h), named by PassId;
// lowering is its own pass before bufferization.
TEST(Driver, ThePipelineIsListedOnce) {
  std::vector<std::string> names;
  for (size_t i = 0; i < pipeline_passes().size(); ++i) {
    EXPECT_EQ(pipeline_passes()[i].id, PassId(i));
    names.push_back(pipeline_passes()[i].name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"settle", "check", "quantize", "fuse", "lower", "schedule", "bufferize"}));
  TempDir dir("driver");
  fs::path model = tiny_cnn().write(dir / "tiny.onnx");
  auto g = import_onnx(model);
  PipelineState state;
  state.graph = g.get();
  std::vector<PassId> ran;
  run_pipeline(state, PipelineOptions{}, PassId::Lower, [&](const Pass& p, const PipelineState&) { ran.push_back(p.id); });
  EXPECT_EQ(ran, (std::vector<PassId>{PassId::Settle, PassId::Check, PassId::Quantize, PassId::Fuse, PassId::Lower}));
  EXPECT_EQ(state.lowered.calls.size(), g->nodes.size());
  EXPECT_TRUE(state.program.ops.empty());
  run_pipeline(state, PipelineOptions{});
  EXPECT_FALSE(state.program.ops.empty());
}

// The lowering passes run again for another target: the Conv's im2col scratch
// follows the target's RAM priority, the graph passes do not run again.
TEST(Driver, TheLoweringPassesRunAgainForAnotherTarget) {
  TempDir dir("driver");
  ModelBuilder m;
  m.input("x", {int64_t(1), int64_t(16), int64_t(8), int64_t(32)}).output("y", {int64_t(1), int64_t(16), int64_t(8), int64_t(32)});
  m.initializer(ModelBuilder::float_raw("w", {16, 16, 3, 3}, ramp(16 * 16 * 9, 0.01f)));
  auto* conv = m.node("Conv", {"x", "w"}, {"y"}, "conv");
  ModelBuilder::attr_ints(conv, "pads", {1, 1, 1, 1});
  ModelBuilder::attr_ints(conv, "kernel_shape", {3, 3});
  auto g = import_onnx(m.write(dir / "conv.onnx"));
  PipelineState state;
  state.graph = g.get();
  PipelineOptions speed;
  run_pipeline(state, speed);
  auto scratch = [&] {
    uint64_t bytes = 0;
    for (const Buffer& b : state.program.buffers)
      if (b.kind == BufferKind::Scratch) bytes += b.size_bytes;
    return bytes;
  };
  EXPECT_EQ(scratch(), 16u * 9u * 4u * 32u);  // one output row of 16 x 3 x 3 columns
  const size_t nodes = g->nodes.size();
  PipelineOptions ram = speed;
  ram.target.ram_priority = true;
  rerun_lowering_passes(state, ram);
  EXPECT_EQ(scratch(), 16u * 9u * 4u * 4u);  // four columns within the RAM budget
  EXPECT_EQ(g->nodes.size(), nodes);
}

class DriverPlan : public ::testing::TestWithParam<bool> {};

// Parameter: alias_views (off turns the Flatten into a copy and adds a buffer).
TEST_P(DriverPlan, EveryBufferIsPlacedAndThePlanVerifies) {
  TempDir dir("driver");
  fs::path model = tiny_cnn().write(dir / "tiny.onnx");
  auto g = import_onnx(model);
  fold_and_simplify(*g, FoldOptions{});
  BufferizeOptions bo;
  bo.alias_views = GetParam();
  BufferizedProgram prog = bufferize(*g, lower_graph(*g, LoweringTarget{}), bo);

  // The Conv's im2col scratch is in the program.
  int scratch = 0;
  for (const auto& b : prog.buffers) scratch += b.kind == BufferKind::Scratch;
  EXPECT_EQ(scratch, 1);

  MemoryPlanOptions mo;
  planner::Pool ws, params;
  ws.name = "internal";
  ws.is_user = false;
  params.name = "internal";
  params.kind = planner::PoolKind::Parameter;
  params.is_user = false;
  mo.pools = {ws, params};
  MemoryPlan mp = plan_program_memory(prog, mo);
  EXPECT_EQ(planner::verify_plan(mp.problem, mp.plan), "");
  ASSERT_EQ(mp.plan.placements.size(), mp.problem.buffers.size());
  for (size_t i = 0; i < mp.problem.buffers.size(); ++i) EXPECT_GE(mp.plan.placements[i].pool, 0) << mp.problem.buffers[i].name;

  ASSERT_EQ(mp.emit.buffer_pool.size(), prog.buffers.size());
  ASSERT_EQ(mp.emit.buffer_offset.size(), prog.buffers.size());
  uint64_t constant_bytes = 0;
  for (const auto& b : prog.buffers) {
    const int pool = mp.emit.buffer_pool[size_t(b.id)];
    const bool caller = b.kind == BufferKind::Input || b.kind == BufferKind::Output;
    if (caller) {
      EXPECT_EQ(pool, -1) << b.name << ": caller inputs/outputs are not planned";
      continue;
    }
    if (b.size_bytes == 0) continue;
    ASSERT_GE(pool, 0) << b.name << " is not placed";
    ASSERT_LT(size_t(pool), mp.emit.pools.size());
    const EmitPool& p = mp.emit.pools[size_t(pool)];
    EXPECT_EQ(p.is_workspace, b.kind != BufferKind::Constant) << b.name;
    EXPECT_LE(mp.emit.buffer_offset[size_t(b.id)] + b.size_bytes, p.size_bytes) << b.name << " ends past its pool";
    EXPECT_EQ(mp.emit.buffer_offset[size_t(b.id)] % b.alignment, 0u) << b.name;
    if (b.kind == BufferKind::Constant) constant_bytes += b.size_bytes;
  }
  EXPECT_EQ(constant_bytes, kWeightBytes);
  expect_no_overlap(prog, mp.emit);
}

INSTANTIATE_TEST_SUITE_P(AliasViews, DriverPlan, ::testing::Bool());

// The memory flags' syntax is the CLI's (cli/pool_flags.h): errors name the flag.
TEST(Driver, PoolAndPinFlagsAreParsedByTheCli) {
  planner::Pool p = parse_pool_flag("name=sram;size=64K;align=16;section=.bss.sram", planner::PoolKind::Workspace,
                                    "--with-workspace-buffer");
  EXPECT_EQ(p.name, "sram");
  EXPECT_EQ(p.capacity.value_or(0), 64u * 1024u);
  EXPECT_EQ(p.alignment, 16u);
  EXPECT_EQ(p.section, ".bss.sram");
  std::vector<planner::Pool> pools;
  add_user_pool(&pools, p);
  EXPECT_THROW(add_user_pool(&pools, p), planner::PlanError);
  planner::PinRequest pin = parse_pin_flag("conv1*=dtcm, sram");
  EXPECT_EQ(pin.pattern, "conv1*");
  EXPECT_EQ(pin.pools, (std::vector<std::string>{"dtcm", "sram"}));
  try {
    parse_pin_flag("conv1*");
    ADD_FAILURE() << "a pin without pools";
  } catch (const planner::PlanError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "--pin \"conv1*\": expected PATTERN=POOL");
  }
  try {
    parse_pool_flag("name=sram;size=lots", planner::PoolKind::Workspace, "--with-workspace-buffer");
    ADD_FAILURE() << "a bad size";
  } catch (const planner::PlanError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "--with-workspace-buffer \"name=sram;size=lots\"");
  }
}

TEST(Driver, UserPoolsAreHonoured) {
  TempDir dir("driver");
  fs::path model = tiny_cnn().write(dir / "tiny.onnx");
  CompileOptions o = quiet_options(dir / "out");
  o.workspace_pools = {parse_pool_flag("name=sram;size=64K;align=16", planner::PoolKind::Workspace, "--with-workspace-buffer")};
  o.parameter_pools = {parse_pool_flag("name=flash;size=1M", planner::PoolKind::Parameter, "--with-parameter-buffer")};
  CompiledModule m = compile_model(model, o);
  ASSERT_EQ(m.pools.size(), 2u);
  EXPECT_EQ(m.pools[0].name, "sram");
  EXPECT_TRUE(m.pools[0].is_workspace);
  EXPECT_TRUE(m.pools[0].is_user_pool);
  EXPECT_LE(m.pools[0].size_bytes, 64u * 1024u);
  EXPECT_EQ(m.pools[1].name, "flash");
  EXPECT_FALSE(m.pools[1].is_workspace);
  EXPECT_GE(m.pools[1].size_bytes, kWeightBytes);

  // A workspace too small for the largest activation is an error, not a broken module.
  CompileOptions small = quiet_options(dir / "out_small");
  small.workspace_pools = {parse_pool_flag("name=sram;size=64", planner::PoolKind::Workspace, "--with-workspace-buffer")};
  try {
    compile_model(model, small);
    FAIL() << "a 64-byte workspace cannot hold this model";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

std::string compile_error(const fs::path& model, const CompileOptions& o) {
  try {
    compile_model(model, o);
  } catch (const CompileError& e) {
    std::string s = e.what();
    EXPECT_EQ(s.find('\n'), std::string::npos) << s;
    return s;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected CompileError, got: " << e.what();
    return "";
  }
  ADD_FAILURE() << "compile_model did not throw";
  return "";
}

// x[4] and a mode input m (int64 scalar): y = If(m == 2, x + 1, x * 3).
ModelBuilder mode_model() {
  ModelBuilder m;
  m.input("x", {int64_t(4)}).input("m", {}, onnx::TensorProto::INT64).output("y", {int64_t(4)});
  m.initializer(ModelBuilder::int64_typed("two", {}, {2}));
  m.initializer(ModelBuilder::float_raw("one", {}, {1.0f}));
  m.initializer(ModelBuilder::float_raw("three", {}, {3.0f}));
  m.node("Equal", {"m", "two"}, {"is_two"}, "is_two");
  auto* n = m.node("If", {"is_two"}, {"y"}, "by_mode");
  auto branch = [](const std::string& name, const std::string& op, const std::string& k) {
    onnx::GraphProto g;
    g.set_name(name);
    auto* add = g.add_node();
    add->set_op_type(op);
    add->add_input("x");
    add->add_input(k);
    add->add_output(name + "_out");
    ModelBuilder::set_type(g.add_output(), name + "_out", onnx::TensorProto::FLOAT, {int64_t(4)});
    return g;
  };
  for (auto [attr, g] : {std::pair{"then_branch", branch("plus", "Add", "one")},
                         std::pair{"else_branch", branch("times", "Mul", "three")}}) {
    auto* a = n->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = g;
  }
  return m;
}

TEST(Driver, InputValueMakesTheInputAConstantAndTakesOneBranch) {
  TempDir dir("driver");
  fs::path model = mode_model().write(dir / "m.onnx");
  CompileOptions o = quiet_options(dir / "out", "mode");
  o.input_values["m"] = {2};
  CompiledModule mod = compile_model(model, o);
  ASSERT_EQ(mod.inputs.size(), 1u);  // m left the API
  EXPECT_EQ(mod.inputs[0].name, "x");
  ASSERT_EQ(mod.bound_inputs.size(), 1u);
  EXPECT_EQ(mod.bound_inputs[0].name, "m");
  EXPECT_EQ(mod.bound_inputs[0].position, 1u);
  // Only the taken branch (Add) runs: no Mul, no select.
  std::vector<std::string> ops;
  for (const auto& op : mod.ops) ops.push_back(op.op_type);
  EXPECT_EQ(ops, std::vector<std::string>{"Add"});
  EXPECT_EQ(slurp(dir / "out" / "metadata.h").find("_m_"), std::string::npos);
}

TEST(Driver, RunTimeIfRunsOnlyTheTakenBranch) {
  // The mode is run-time data: both branches are compiled, each op under its side's
  // condition (bufferize/branch_guards.h), each writing straight into the output
  // (no KilnSelect copy).
  TempDir dir("driver");
  CompiledModule mod = compile_model(mode_model().write(dir / "m.onnx"), quiet_options(dir / "out", "mode"));
  const std::string c = slurp(dir / "out" / "operators.c");
  auto guarded = [&](const std::string& kernel, const char* test) {
    size_t at = c.find(kernel);
    if (at == std::string::npos) return false;
    size_t guard = c.rfind("if ((*(", at);
    size_t prev_step = c.rfind("/* step", at);
    return guard != std::string::npos && guard > prev_step && c.substr(guard, at - guard).find(test) != std::string::npos;
  };
  EXPECT_TRUE(guarded("kiln_add_f32(", "!= 0)")) << c;
  EXPECT_TRUE(guarded("kiln_mul_f32(", "== 0)")) << c;
  EXPECT_FALSE(guarded("kiln_equal_i64(", "0)")) << c;  // the condition itself always runs
  EXPECT_EQ(c.find("kiln_select_bytes"), std::string::npos) << c;
  EXPECT_EQ(c.find("kiln_copy_bytes"), std::string::npos) << c;
  for (const char* kernel : {"kiln_add_f32(", "kiln_mul_f32("}) {  // both write the caller's output
    size_t at = c.find(kernel);
    ASSERT_NE(at, std::string::npos) << kernel;
    EXPECT_NE(c.substr(at, c.find('\n', at) - at).find("(float*)((uint8_t*)outputs->y))"), std::string::npos) << kernel;
  }
}

TEST(Driver, InputValueErrorsNameTheFlag) {
  TempDir dir("driver");
  fs::path model = mode_model().write(dir / "m.onnx");
  CompileOptions o = quiet_options(dir / "out", "mode");
  o.input_values["nope"] = {1};
  EXPECT_CONTAINS(compile_error(model, o), "--input-value names 'nope', which is not a graph input");
  o.input_values.clear();
  o.input_values["m"] = {1, 2};
  EXPECT_CONTAINS(compile_error(model, o), "--input-value 'm': 2 values given");
  o.input_values["m"] = {1.5};
  EXPECT_CONTAINS(compile_error(model, o), "is not a value of int64");
  o.input_values.clear();
  o.input_values["x"] = {1, 2, 3, 4};  // a float input may be bound too: then y is a constant
  EXPECT_NO_THROW(compile_model(model, o));
}

TEST(Driver, UnknownOpFailsTheCompileNamingTheNode) {
  TempDir dir("driver");
  ModelBuilder m;
  m.input("x", {int64_t(4)}).output("y", {int64_t(4)});
  m.node("Relu", {"x"}, {"a"}, "relu");
  m.node("Frobnicate", {"a"}, {"y"}, "strange_node");
  std::string msg = compile_error(m.write(dir / "m.onnx"), quiet_options(dir / "out"));
  EXPECT_CONTAINS(msg, "Frobnicate");
  EXPECT_CONTAINS(msg, "strange_node");
}

TEST(Driver, OnnxOpWithoutALoweringFailsNamingTheNode) {
  // A real ONNX op with static shapes that Kiln (today) has no kernel for: the
  // error comes from lowering, after import accepted the model.
  std::string op;
  for (const char* candidate : {"Hardmax", "LpNormalization", "Shrink", "Mish", "HardSwish", "Selu", "Softsign"})
    if (!has_lowering(candidate)) {
      op = candidate;
      break;
    }
  if (op.empty()) GTEST_SKIP() << "every candidate op has a lowering now";
  TempDir dir("driver");
  ModelBuilder m(14);
  m.input("x", {int64_t(2), int64_t(4)}).output("y", {int64_t(2), int64_t(4)});
  m.node(op, {"x"}, {"y"}, "unlowered");
  fs::path model = m.write(dir / "m.onnx");
  EXPECT_NO_THROW(import_onnx(model));
  std::string msg = compile_error(model, quiet_options(dir / "out"));
  EXPECT_CONTAINS(msg, op + " 'unlowered'");
}

TEST(Driver, DataDependentShapeFailsNamingTheNode) {
  // NonZero's output length depends on the data: no --input-shape can make it static,
  // only a shape declared in the model (then checked at run time).
  TempDir dir("driver");
  ModelBuilder m;
  m.input("x", {int64_t(4)}).output("y", {int64_t(1), std::string("K")}, onnx::TensorProto::INT64);
  m.node("NonZero", {"x"}, {"y"}, "nz");
  const std::string msg = compile_error(m.write(dir / "m.onnx"), quiet_options(dir / "out"));
  EXPECT_CONTAINS(msg, "NonZero 'nz'");
  EXPECT_CONTAINS(msg, "declare it statically in the model");
  // Declared: it compiles.
  ModelBuilder d;
  d.input("x", {int64_t(4)}).output("y", {int64_t(1), int64_t(2)}, onnx::TensorProto::INT64);
  d.node("NonZero", {"x"}, {"y"}, "nz");
  EXPECT_NO_THROW(compile_model(d.write(dir / "d.onnx"), quiet_options(dir / "out_d")));
}

TEST(Driver, RunTimePositionOverElementsOfDifferentShapesFailsNamingTheOp) {
  // A run-time position may pick any element: with elements of different shapes the
  // result's shape would be data dependent (sequence/runtime_sequences.h).
  TempDir dir("driver");
  ModelBuilder m;
  m.input("a", {int64_t(2)}).input("b", {int64_t(3)}).input("p", {}, onnx::TensorProto::INT64);
  m.output("y", {std::string("N")});
  m.node("SequenceConstruct", {"a", "b"}, {"s"}, "construct");
  m.node("SequenceAt", {"s", "p"}, {"y"}, "pick");
  const std::string msg = compile_error(m.write(dir / "at.onnx"), quiet_options(dir / "o1"));
  EXPECT_CONTAINS(msg, "SequenceAt 'pick'");
  EXPECT_CONTAINS(msg, "the result shape would be data dependent");

  ModelBuilder m2;
  m2.input("a", {int64_t(2)}).input("b", {int64_t(3)}).input("p", {}, onnx::TensorProto::INT64);
  m2.output("y", {int64_t(2)});
  m2.node("SequenceConstruct", {"a", "a"}, {"s"}, "construct");
  m2.node("SequenceInsert", {"s", "b", "p"}, {"s2"}, "insert");
  m2.node("SequenceAt", {"s2", "p"}, {"y"}, "pick");
  const std::string msg2 = compile_error(m2.write(dir / "ins.onnx"), quiet_options(dir / "o2"));
  EXPECT_CONTAINS(msg2, "SequenceInsert 'insert'");
  EXPECT_CONTAINS(msg2, "float32 [3]");
  EXPECT_CONTAINS(msg2, "the result shape would be data dependent");
}

TEST(Driver, ElementsOnlyASequenceTableHoldsAreWrittenIntoTheirSlots) {
  // SequenceAt at a run-time position makes the sequence a run-time table; each
  // element is computed by an op and held by the table only, so its producer writes
  // it straight into its slot: the workspace is the table alone, 16 bytes of header
  // (count + 3 slot indices, rounded to 8) and 3 slots of 16 bytes. Without
  // placement the three 16-byte elements are live next to the table.
  TempDir dir("driver");
  ModelBuilder m;
  m.input("a", {int64_t(4)}).input("b", {int64_t(4)}).input("c", {int64_t(4)});
  m.input("p", {}, onnx::TensorProto::INT64);
  m.output("y", {int64_t(4)});
  m.node("Relu", {"a"}, {"ra"}, "relu");
  m.node("Sigmoid", {"b"}, {"sb"}, "sigmoid");
  m.node("Tanh", {"c"}, {"tc"}, "tanh");
  m.node("SequenceConstruct", {"ra", "sb", "tc"}, {"s"}, "construct");
  m.node("SequenceAt", {"s", "p"}, {"y"}, "pick");
  const fs::path model = m.write(dir / "slots.onnx");
  auto workspace = [](const CompiledModule& cm) {
    uint64_t bytes = 0;
    for (const auto& pool : cm.pools)
      if (pool.is_workspace) bytes += pool.size_bytes;
    return bytes;
  };
  EXPECT_EQ(workspace(compile_model(model, quiet_options(dir / "placed"))), 64u);
  CompileOptions no_alias = quiet_options(dir / "copied");
  no_alias.alias_views = false;
  EXPECT_GE(workspace(compile_model(model, no_alias)), 64u + 3u * 16u);
}

TEST(Driver, BadOptionsNameTheFlag) {
  TempDir dir("driver");
  fs::path model = tiny_cnn().write(dir / "tiny.onnx");
  EXPECT_CONTAINS(compile_error(model, quiet_options(dir / "o1", "2bad")), "--module-name");
  CompileOptions o = quiet_options(dir / "o2");
  o.executor = "graph";
  EXPECT_CONTAINS(compile_error(model, o), "--executor");
  CompileOptions t = quiet_options(dir / "o3");
  t.target = "llvm";
  EXPECT_CONTAINS(compile_error(model, t), "--target");
  CompileOptions f = quiet_options(dir / "o4");
  f.output_format = "zip";
  EXPECT_CONTAINS(compile_error(model, f), "--output-format");
  CompileOptions none = quiet_options("");
  EXPECT_CONTAINS(compile_error(model, none), "-o");
}

TEST(Driver, TruncatedModelFailsTheCompile) {
  TempDir dir("driver");
  std::string bytes = tiny_cnn().bytes();
  testing::write_bytes(dir / "cut.onnx", bytes.substr(0, bytes.size() / 2));
  EXPECT_CONTAINS(compile_error(dir / "cut.onnx", quiet_options(dir / "out")), "cut.onnx");
}

// --io-in-workspace: the graph input and output are planned into the workspace
// pool (so the caller needs no separate I/O buffers), the pool grows by at most
// their bytes, and the plan still verifies with them in it.
TEST(Driver, IoInWorkspacePlansInputsAndOutputsIntoThePool) {
  TempDir dir("driver");
  fs::path model = tiny_cnn().write(dir / "tiny.onnx");
  auto g = import_onnx(model);
  fold_and_simplify(*g, FoldOptions{});
  BufferizedProgram prog = bufferize(*g, lower_graph(*g, LoweringTarget{}));
  MemoryPlanOptions mo;
  mo.pools = {parse_pool_flag("name=sram", planner::PoolKind::Workspace, "--with-workspace-buffer")};
  planner::Pool params;
  params.name = "internal";
  params.kind = planner::PoolKind::Parameter;
  params.is_user = false;
  mo.pools.push_back(params);
  const MemoryPlan without = plan_program_memory(prog, mo);
  mo.io_in_workspace = true;
  const MemoryPlan with = plan_program_memory(prog, mo);
  EXPECT_EQ(planner::verify_plan(with.problem, with.plan), "");
  // Own overlap check on the planner's intervals (the program's give caller I/O the whole run).
  for (size_t i = 0; i < with.problem.buffers.size(); ++i)
    for (size_t j = i + 1; j < with.problem.buffers.size(); ++j) {
      const auto &a = with.problem.buffers[i], &b = with.problem.buffers[j];
      const auto &pa = with.plan.placements[i], &pb = with.plan.placements[j];
      if (pa.pool != pb.pool || a.size_bytes == 0 || b.size_bytes == 0) continue;
      const bool live_together = a.first < b.last && b.first < a.last;
      const bool bytes_overlap = pa.offset < pb.offset + b.size_bytes && pb.offset < pa.offset + a.size_bytes;
      EXPECT_FALSE(live_together && bytes_overlap) << a.name << " and " << b.name << " overlap";
    }

  uint64_t io_bytes = 0;
  int io_buffers = 0;
  for (const auto& b : prog.buffers) {
    if (b.kind != BufferKind::Input && b.kind != BufferKind::Output) continue;
    ++io_buffers;
    io_bytes += b.size_bytes;
    EXPECT_EQ(without.emit.buffer_pool[size_t(b.id)], -1) << b.name;
    EXPECT_EQ(with.emit.buffer_pool[size_t(b.id)], 0) << b.name << " must be in the workspace pool, not a caller buffer";
    EXPECT_LE(with.emit.buffer_offset[size_t(b.id)] + b.size_bytes, with.emit.pools[0].size_bytes) << b.name;
  }
  EXPECT_EQ(io_buffers, 2);
  EXPECT_EQ(io_bytes, 288u + 16u);
  EXPECT_GE(with.emit.pools[0].size_bytes, without.emit.pools[0].size_bytes);
  EXPECT_LE(with.emit.pools[0].size_bytes, without.emit.pools[0].size_bytes + io_bytes);
  // The input is free once its last reader ran; the output is only written at the end.
  for (size_t i = 0; i < with.problem.buffers.size(); ++i) {
    const auto& info = with.problem.buffers[i];
    const Buffer& b = prog.buffers[size_t(with.program_buffer[i])];
    if (b.kind == BufferKind::Input) {
      EXPECT_EQ(info.first, 0);
      EXPECT_LT(info.last, int64_t(prog.ops.size())) << "x is read by the first op only";
    } else if (b.kind == BufferKind::Output) {
      EXPECT_GT(info.first, 0) << "y is written by the last op";
      EXPECT_EQ(info.last, int64_t(prog.ops.size()));
    }
  }
}

// The generated API end to end on the host: map_inputs/map_outputs hand out
// pointers into the caller's pool; writing the input there and running gives the
// same bytes as the same model compiled with caller I/O buffers; NULL structs
// work; a pointer other than the mapped one and a misaligned pool are rejected.
TEST(Driver, IoInWorkspaceMappedPointersRunOnTheHost) {
  TempDir dir("driver");
  fs::path model = tiny_cnn().write(dir / "tiny.onnx");
  CompileOptions ref = quiet_options(dir / "ref", "ref");
  ref.workspace_pools = {parse_pool_flag("name=sram", planner::PoolKind::Workspace, "--with-workspace-buffer")};
  compile_model(model, ref);
  CompileOptions io = quiet_options(dir / "io", "io");
  io.workspace_pools = {parse_pool_flag("name=sram", planner::PoolKind::Workspace, "--with-workspace-buffer")};
  io.io_in_workspace = true;
  CompiledModule m = compile_model(model, io);
  const std::string h = slurp(m.dir / "metadata.h");
  EXPECT_CONTAINS(h, "int32_t kiln_io_map_inputs(const struct kiln_io_workspaces* workspaces, struct kiln_io_inputs* inputs);");
  EXPECT_CONTAINS(h, "int32_t kiln_io_map_outputs(const struct kiln_io_workspaces* workspaces, struct kiln_io_outputs* outputs);");
  EXPECT_CONTAINS(h, "KILN_IO_INPUT_X_OFFSET");

  std::ofstream(dir / "main.c") << R"(#include <string.h>
#include "io/metadata.h"
#include "ref/metadata.h"
static uint8_t ws_ref[KILN_REF_SRAM_WORKSPACE_SIZE] KILN_ALIGNED(16);
static uint8_t ws_io[KILN_IO_SRAM_WORKSPACE_SIZE] KILN_ALIGNED(16);
int main(void) {
  float x[KILN_IO_INPUT_X_SIZE / 4], y_ref[KILN_IO_OUTPUT_Y_SIZE / 4];
  unsigned i;
  for (i = 0; i < sizeof x / sizeof x[0]; ++i) x[i] = (float)((i * 7u) % 11u) * 0.1f - 0.5f;
  {
    struct kiln_ref_inputs ri; struct kiln_ref_outputs ro; struct kiln_ref_workspaces rw;
    ri.x = x; ro.y = y_ref; rw.sram = ws_ref;
    if (kiln_ref_run(&ri, &ro, &rw, NULL) != KILN_OK) return 10;
  }
  {
    struct kiln_io_workspaces w, mis; struct kiln_io_inputs in, bad; struct kiln_io_outputs out;
    w.sram = ws_io;
    if (kiln_io_map_inputs(&w, &in) != KILN_OK || kiln_io_map_outputs(&w, &out) != KILN_OK) return 11;
    if ((const uint8_t*)in.x != ws_io + KILN_IO_INPUT_X_OFFSET) return 12;
    if ((uint8_t*)out.y != ws_io + KILN_IO_OUTPUT_Y_OFFSET) return 12;
    if (KILN_IO_INPUT_X_OFFSET + sizeof x > sizeof ws_io || KILN_IO_OUTPUT_Y_OFFSET + sizeof y_ref > sizeof ws_io) return 12;
    memset(ws_io, 0xA5, sizeof ws_io);
    memcpy((void*)in.x, x, sizeof x);
    if (kiln_io_run(&in, &out, &w, NULL) != KILN_OK) return 13;
    if (memcmp(out.y, y_ref, sizeof y_ref) != 0) return 14;
    memset(ws_io, 0x5A, sizeof ws_io);
    memcpy((void*)in.x, x, sizeof x);
    if (kiln_io_run(NULL, NULL, &w, NULL) != KILN_OK) return 15;
    if (memcmp(out.y, y_ref, sizeof y_ref) != 0) return 16;
    bad.x = x;
    if (kiln_io_run(&bad, &out, &w, NULL) != KILN_ERR_BAD_ARGUMENT) return 17;
    mis.sram = ws_io + 1;
    if (kiln_io_map_inputs(&mis, &in) != KILN_ERR_MISALIGNED) return 18;
    if (kiln_io_map_outputs(NULL, &out) != KILN_ERR_NULL_POINTER) return 19;
  }
  return 0;
}
)";
  std::vector<std::string> cmd = {"cc", "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-pedantic",
                                   "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                                   "-I" + (m.crt_dir / "include").string(), "-I" + dir.path().string(), "-o",
                                   (dir / "run").string(), (dir / "main.c").string()};
  // Each module's files see their own metadata.h: compile them in a folder of their own.
  std::vector<std::string> objs;
  for (const char* mod : {"ref", "io"})
    for (const auto& e : fs::directory_iterator(dir / mod))
      if (e.path().extension() == ".c") {
        std::string obj = (dir / (std::string(mod) + "_" + e.path().stem().string() + ".o")).string();
        ProcessResult r = run_process({"cc", "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-pedantic",
                                       "-fsanitize=address,undefined", "-I" + (dir / mod).string(),
                                       "-I" + (m.crt_dir / "include").string(), "-c", e.path().string(), "-o", obj},
                                      120);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        objs.push_back(obj);
      }
  cmd.insert(cmd.end(), objs.begin(), objs.end());
  for (const auto& e : fs::recursive_directory_iterator(m.crt_dir / "src"))
    if (e.path().extension() == ".c") cmd.push_back(e.path().string());
  cmd.push_back("-lm");
  ProcessResult built = run_process(cmd, 300);
  ASSERT_EQ(built.exit_code, 0) << built.output;
  ProcessResult ran = run_process({(dir / "run").string()}, 60);
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

// models/loop/make_region_models.py: the same body run 4 and 16 times.
struct RegionBuild {
  uint64_t workspace = 0;
  std::string code;  // operators.c
  size_t calls = 0;
};

RegionBuild compile_region_state(int trips, const fs::path& out) {
  const fs::path model = fs::path(KILN_SOURCE_DIR) / "tests/e2e/models/loop" /
                         ("region_state_" + std::to_string(trips) + ".onnx");
  CompiledModule m = compile_model(model, quiet_options(out, "loop"));
  RegionBuild r;
  for (const auto& p : m.pools)
    if (p.is_workspace) r.workspace += p.size_bytes;
  r.code = slurp(out / "operators.c");
  r.calls = m.ops.size();
  return r;
}

TEST(Driver, LoopBodyIsPlannedOnceWhateverTheTripCount) {
  // A Loop is one C `for` around its body: the workspace and the code are those of
  // one iteration, the trip count only a loop bound.
  TempDir dir("driver");
  const RegionBuild four = compile_region_state(4, dir / "four");
  const RegionBuild sixteen = compile_region_state(16, dir / "sixteen");
  EXPECT_EQ(four.workspace, sixteen.workspace);
  EXPECT_EQ(four.calls, sixteen.calls);
  EXPECT_NE(four.code.find("kiln_trips_"), std::string::npos) << four.code;
  EXPECT_NE(four.code.find(" = 4;"), std::string::npos) << four.code;
  EXPECT_NE(sixteen.code.find(" = 16;"), std::string::npos) << sixteen.code;
  // One MatMul kernel call per body MatMul, not one per iteration.
  auto count = [](const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(four.code, "for (kiln_iter_"), 1u);
  EXPECT_EQ(count(four.code, "kiln_matmul"), count(sixteen.code, "kiln_matmul"));
  EXPECT_LT(sixteen.code.size(), four.code.size() + 64);
  // The next state is computed straight into the carried buffer (its last reader
  // ran earlier in the iteration): the only copies are the initial value in and
  // the final value out, none per iteration.
  EXPECT_EQ(count(four.code, "kiln_copy_bytes("), 2u) << four.code;
}

TEST(Driver, HowEachLoopWasLoweredIsNoted) {
  TempDir dir("driver");
  const fs::path model = fs::path(KILN_SOURCE_DIR) / "tests/e2e/models/loop/region_state_4.onnx";
  std::unique_ptr<Graph> g = import_onnx(model, {});
  PipelineState s;
  s.graph = g.get();
  run_pipeline(s, PipelineOptions{}, PassId::Settle);
  ASSERT_EQ(g->lowering_notes.size(), 1u);
  EXPECT_CONTAINS(g->lowering_notes[0], "a C loop, its body");
}

}  // namespace
}  // namespace kiln
