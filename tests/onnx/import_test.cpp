// The ONNX importer on small models built in C++: constants from every storage
// form, opsets, static shapes, and a one-line CompileError for every bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "../support/expect_contains.h"
#include "model_builder.h"
#include "onnx/newer_opsets.h"
#include "onnx/onnx_importer.h"
#include "onnx/tensor_proto.h"
#include "util/error.h"

namespace kiln {
namespace {

using testing::ModelBuilder;
using testing::TempDir;

std::vector<float> floats_of(const Constant& c) {
  std::vector<float> v(size_t(c.num_elements()));
  if (!v.empty()) std::memcpy(v.data(), c.data(), v.size() * sizeof(float));
  return v;
}

// Runs `f`, which must throw CompileError; returns its message after checking it is one line.
template <typename F>
std::string compile_error(F&& f) {
  try {
    f();
  } catch (const CompileError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "not one line: " << m;
    EXPECT_FALSE(m.empty());
    return m;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected CompileError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected CompileError, nothing was thrown";
  return "";
}

// y = Relu(x + w), w an initializer.
ModelBuilder add_relu_model(const onnx::TensorProto& w) {
  ModelBuilder m;
  m.input("x", {int64_t(2), int64_t(3)}).output("y", {int64_t(2), int64_t(3)});
  m.initializer(w);
  m.node("Add", {"x", w.name()}, {"s"}, "add");
  m.node("Relu", {"s"}, {"y"}, "relu");
  return m;
}

TEST(Import, GraphStructureShapesAndOpset) {
  TempDir dir("import");
  auto m = add_relu_model(ModelBuilder::float_raw("w", {3}, {1, 2, 3}));
  auto g = import_onnx(m.write(dir / "m.onnx"));
  EXPECT_EQ(g->name, "test_graph");
  EXPECT_EQ(g->opset, 13);
  ASSERT_EQ(g->inputs.size(), 1u);  // the initializer is not a runtime input
  EXPECT_EQ(g->inputs[0]->name, "x");
  EXPECT_TRUE(g->inputs[0]->is_graph_input);
  ASSERT_EQ(g->outputs.size(), 1u);
  EXPECT_TRUE(g->outputs[0]->is_graph_output);
  ASSERT_EQ(g->nodes.size(), 2u);
  const Node& add = *g->nodes.front();
  const Node& relu = *g->nodes.back();
  EXPECT_EQ(add.op_type, "Add");
  EXPECT_EQ(add.name, "add");
  EXPECT_EQ(add.opset, 13);
  EXPECT_EQ(relu.inputs[0], add.outputs[0]);
  EXPECT_EQ(add.outputs[0]->producer, &add);
  EXPECT_EQ(relu.outputs[0], g->outputs[0]);
  // The intermediate value got its type and shape from shape inference.
  Value* s = g->find_value("s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->dtype, DType::Float32);
  EXPECT_EQ(s->shape, (Shape{2, 3}));
  EXPECT_FALSE(s->is_constant());
}

TEST(Import, UnnamedNodesGetUniqueNames) {
  TempDir dir("import");
  ModelBuilder m;
  m.input("x", {int64_t(4)}).output("y", {int64_t(4)});
  m.node("Relu", {"x"}, {"a"});
  m.node("Relu", {"a"}, {"b"});
  m.node("Relu", {"b"}, {"y"}, "Relu_0");  // clashes with the name of the first unnamed node
  auto g = import_onnx(m.write(dir / "m.onnx"));
  std::set<std::string> names;
  for (const auto& n : g->nodes) EXPECT_TRUE(names.insert(n->name).second) << n->name;
  EXPECT_EQ(g->nodes.front()->name, "Relu_0");
}

TEST(Import, InitializerFromRawData) {
  TempDir dir("import");
  const std::vector<float> w = {1.5f, -0.f, 3.25e-20f};
  auto g = import_onnx(add_relu_model(ModelBuilder::float_raw("w", {3}, w)).write(dir / "m.onnx"));
  Value* v = g->find_value("w");
  ASSERT_NE(v, nullptr);
  ASSERT_TRUE(v->is_constant());
  EXPECT_EQ(v->producer, nullptr);
  EXPECT_FALSE(v->is_graph_input);
  EXPECT_EQ(v->dtype, DType::Float32);
  EXPECT_EQ(v->shape, (Shape{3}));
  EXPECT_EQ(floats_of(*v->constant), w);
  EXPECT_TRUE(std::signbit(v->constant->as_double(1)));
}

TEST(Import, InitializerFromTypedFields) {
  TempDir dir("import");
  // y = Reshape(x + w, shape): w in float_data, shape in int64_data.
  ModelBuilder m;
  m.input("x", {int64_t(2), int64_t(3)}).output("y", {int64_t(3), int64_t(2)});
  m.initializer(ModelBuilder::float_typed("w", {2, 3}, {1, 2, 3, 4, 5, 6}));
  m.initializer(ModelBuilder::int64_typed("shape", {2}, {3, -1}));
  m.node("Add", {"x", "w"}, {"s"}, "add");
  m.node("Reshape", {"s", "shape"}, {"y"}, "reshape");
  auto g = import_onnx(m.write(dir / "m.onnx"));
  Value* w = g->find_value("w");
  Value* shape = g->find_value("shape");
  ASSERT_TRUE(w && w->is_constant() && shape && shape->is_constant());
  EXPECT_EQ(floats_of(*w->constant), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(shape->constant->dtype(), DType::Int64);
  EXPECT_EQ(shape->constant->to_int64s(), (std::vector<int64_t>{3, -1}));
  EXPECT_EQ(g->outputs[0]->shape, (Shape{3, 2}));
}

TEST(Import, InitializerThatIsAlsoAGraphInputStaysConstant) {
  TempDir dir("import");
  auto m = add_relu_model(ModelBuilder::float_raw("w", {3}, {1, 2, 3}));
  ModelBuilder::set_type(m.graph()->add_input(), "w", onnx::TensorProto::FLOAT, {int64_t(3)});
  auto g = import_onnx(m.write(dir / "m.onnx"));
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->inputs[0]->name, "x");
  EXPECT_TRUE(g->find_value("w")->is_constant());
}

TEST(Import, InitializerFromExternalDataFileNextToTheModel) {
  TempDir dir("import");
  const std::vector<float> w = {7.f, -8.5f, 9.25f};
  // 12 bytes of padding, then the tensor: exercises 'offset'.
  std::string file(12, '\xAB');
  file.append(reinterpret_cast<const char*>(w.data()), 12);
  testing::write_bytes(dir / "weights.bin", file);
  onnx::TensorProto t;
  t.set_name("w");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(3);
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  auto kv = [&](const char* k, const std::string& v) {
    auto* e = t.add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  kv("location", "weights.bin");
  kv("offset", "12");
  kv("length", "12");
  auto g = import_onnx(add_relu_model(t).write(dir / "m.onnx"));
  Value* v = g->find_value("w");
  ASSERT_TRUE(v && v->is_constant());
  EXPECT_EQ(floats_of(*v->constant), w);
}

TEST(Import, MissingExternalDataFileIsAnError) {
  TempDir dir("import");
  onnx::TensorProto t;
  t.set_name("w");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(3);
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* e = t.add_external_data();
  e->set_key("location");
  e->set_value("absent.bin");
  auto path = add_relu_model(t).write(dir / "m.onnx");
  EXPECT_CONTAINS(compile_error([&] { import_onnx(path); }), "absent.bin");
}

// An initializer w[3] stored externally with the given key/value pairs.
onnx::TensorProto external_w(const std::vector<std::pair<std::string, std::string>>& kvs) {
  onnx::TensorProto t;
  t.set_name("w");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(3);
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  for (const auto& [k, v] : kvs) {
    auto* e = t.add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  return t;
}

TEST(Import, BadExternalDataIsAnError) {
  TempDir dir("import");
  testing::write_bytes(dir / "weights.bin", std::string(12, '\0'));
  // length disagrees with dtype x shape
  auto p1 = add_relu_model(external_w({{"location", "weights.bin"}, {"length", "8"}})).write(dir / "m1.onnx");
  compile_error([&] { import_onnx(p1); });
  // the file is too short for the tensor at this offset
  auto p2 = add_relu_model(external_w({{"location", "weights.bin"}, {"offset", "4"}})).write(dir / "m2.onnx");
  compile_error([&] { import_onnx(p2); });
  // outside the model's folder
  auto p3 = add_relu_model(external_w({{"location", "../weights.bin"}})).write(dir / "m3.onnx");
  compile_error([&] { import_onnx(p3); });
}

TEST(Import, NonNumericExternalOffsetIsACompileError) {
  TempDir dir("import");
  testing::write_bytes(dir / "weights.bin", std::string(12, '\0'));
  auto p = add_relu_model(external_w({{"location", "weights.bin"}, {"offset", "twelve"}})).write(dir / "m.onnx");
  EXPECT_CONTAINS(compile_error([&] { import_onnx(p); }), "'offset' is 'twelve'");
}

TEST(Import, ConstantNodesOfEveryForm) {
  TempDir dir("import");
  ModelBuilder m(13);
  m.output("t", {int64_t(2)}).output("f", {}).output("fs", {int64_t(3)});
  m.output("i", {}, onnx::TensorProto::INT64).output("is", {int64_t(2)}, onnx::TensorProto::INT64);
  ModelBuilder::attr_tensor(m.node("Constant", {}, {"t"}, "c_tensor"), "value",
                            ModelBuilder::float_raw("", {2}, {0.25f, -4.f}));
  ModelBuilder::attr_float(m.node("Constant", {}, {"f"}, "c_float"), "value_float", 2.5f);
  ModelBuilder::attr_floats(m.node("Constant", {}, {"fs"}, "c_floats"), "value_floats", {1.f, 2.f, 3.f});
  ModelBuilder::attr_int(m.node("Constant", {}, {"i"}, "c_int"), "value_int", -7);
  ModelBuilder::attr_ints(m.node("Constant", {}, {"is"}, "c_ints"), "value_ints", {4, 5});
  auto g = import_onnx(m.write(dir / "m.onnx"));
  EXPECT_TRUE(g->nodes.empty()) << "Constant nodes become constant values, not nodes";
  auto get = [&](const char* name) -> const Constant& {
    Value* v = g->find_value(name);
    EXPECT_TRUE(v && v->is_constant()) << name;
    EXPECT_TRUE(v->is_graph_output) << name;
    EXPECT_EQ(v->dtype, v->constant->dtype()) << name;
    EXPECT_EQ(v->shape, v->constant->shape()) << name;
    return *v->constant;
  };
  EXPECT_EQ(floats_of(get("t")), (std::vector<float>{0.25f, -4.f}));
  const Constant& f = get("f");
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_TRUE(f.shape().empty());
  EXPECT_EQ(f.as_double(0), 2.5);
  EXPECT_EQ(get("fs").shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(floats_of(get("fs")), (std::vector<float>{1, 2, 3}));
  const Constant& i = get("i");
  EXPECT_EQ(i.dtype(), DType::Int64);
  EXPECT_TRUE(i.shape().empty());
  EXPECT_EQ(i.as_int64(0), -7);
  EXPECT_EQ(get("is").to_int64s(), (std::vector<int64_t>{4, 5}));
}

TEST(Import, ConstantNodeFeedingAnOperator) {
  TempDir dir("import");
  ModelBuilder m;
  m.input("x", {int64_t(3)}).output("y", {int64_t(3)});
  ModelBuilder::attr_tensor(m.node("Constant", {}, {"k"}, "k"), "value", ModelBuilder::float_typed("", {3}, {1, 2, 3}));
  m.node("Mul", {"x", "k"}, {"y"}, "mul");
  auto g = import_onnx(m.write(dir / "m.onnx"));
  ASSERT_EQ(g->nodes.size(), 1u);
  const Node& mul = *g->nodes.front();
  ASSERT_TRUE(mul.inputs[1]->is_constant());
  EXPECT_EQ(mul.inputs[1]->users, (std::vector<Node*>{g->nodes.front().get()}));
  EXPECT_EQ(floats_of(*mul.inputs[1]->constant), (std::vector<float>{1, 2, 3}));
}

TEST(Import, AttributesOfEveryKind) {
  TempDir dir("import");
  ModelBuilder m;
  m.input("x", {int64_t(1), int64_t(1), int64_t(5), int64_t(5)}).output("y", {int64_t(1), int64_t(1), int64_t(3), int64_t(3)});
  auto* n = m.node("MaxPool", {"x"}, {"y"}, "pool");
  ModelBuilder::attr_ints(n, "kernel_shape", {3, 3});
  ModelBuilder::attr_ints(n, "strides", {2, 2});
  ModelBuilder::attr_ints(n, "pads", {1, 1, 1, 1});
  auto* a = n->add_attribute();
  a->set_name("auto_pad");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("NOTSET");
  auto g = import_onnx(m.write(dir / "m.onnx"));
  const Node& p = *g->nodes.front();
  EXPECT_EQ(p.attr_ints("kernel_shape"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(p.attr_ints("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(p.attr_string("auto_pad", ""), "NOTSET");
  EXPECT_EQ(g->outputs[0]->shape, (Shape{1, 1, 3, 3}));
}

TEST(Import, Opset6ModelIsConvertedToOpset9) {
  TempDir dir("import");
  // Opset 6 Add with the legacy `broadcast` attribute; the converter rewrites it
  // to numpy broadcasting (opset 7 on), and the model lands at kUpgradeOpset.
  ModelBuilder m(6);
  m.input("x", {int64_t(2), int64_t(3)}).output("y", {int64_t(2), int64_t(3)});
  m.initializer(ModelBuilder::float_raw("b", {3}, {1, 2, 3}));
  auto* add = m.node("Add", {"x", "b"}, {"s"}, "add");
  ModelBuilder::attr_int(add, "broadcast", 1);
  m.node("Relu", {"s"}, {"y"}, "relu");
  auto g = import_onnx(m.write(dir / "m.onnx"));
  EXPECT_EQ(g->opset, kUpgradeOpset);
  ASSERT_EQ(g->nodes.size(), 2u);
  const Node& a = *g->nodes.front();
  EXPECT_EQ(a.op_type, "Add");
  EXPECT_EQ(a.opset, kUpgradeOpset);
  EXPECT_FALSE(a.has_attr("broadcast"));
  EXPECT_TRUE(a.inputs[1]->is_constant());
  EXPECT_EQ(g->outputs[0]->shape, (Shape{2, 3}));
}

// Old PyTorch exports (opset 6) hold Reshape targets in int64 Constant nodes, which
// only Constant-9 allows: converted to opset 7 such a model fails shape inference.
TEST(Import, Opset6Int64ConstantShapeIsAccepted) {
  TempDir dir("import");
  ModelBuilder m(6);
  m.input("x", {int64_t(2), int64_t(6)}).output("y", {int64_t(3), int64_t(4)});
  ModelBuilder::attr_tensor(m.node("Constant", {}, {"shape"}, "c_shape"), "value",
                            ModelBuilder::int64_typed("", {2}, {3, 4}));
  m.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  auto g = import_onnx(m.write(dir / "m.onnx"));
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes.front()->op_type, "Reshape");
  EXPECT_EQ(g->nodes.front()->inputs[1]->constant->to_int64s(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(g->outputs[0]->shape, (Shape{3, 4}));
}

TEST(Import, TruncatedFileIsAOneLineError) {
  TempDir dir("import");
  std::vector<float> big(256, 1.f);
  ModelBuilder m;
  m.input("x", {int64_t(256)}).output("y", {int64_t(256)});
  m.initializer(ModelBuilder::float_raw("w", {256}, big));
  m.node("Add", {"x", "w"}, {"y"}, "add");
  std::string bytes = m.bytes();
  for (size_t cut : {bytes.size() / 2, bytes.size() - 3, size_t(5)}) {
    auto path = dir / ("cut" + std::to_string(cut) + ".onnx");
    testing::write_bytes(path, bytes.substr(0, cut));
    EXPECT_CONTAINS(compile_error([&] { import_onnx(path); }), "not a valid ONNX");
  }
}

TEST(Import, NotAProtobufIsAOneLineError) {
  TempDir dir("import");
  auto path = dir / "junk.onnx";
  testing::write_bytes(path, std::string("\xff\xff\xff\xff not an onnx model\n", 24));
  EXPECT_CONTAINS(compile_error([&] { import_onnx(path); }), "not a valid ONNX");
  // A text-format model and an empty file: protobuf may even parse them (as unknown
  // fields), but there is no graph.
  auto text = dir / "text.onnx";
  testing::write_bytes(text, "ir_version: 8\ngraph { name: \"g\" }\n");
  compile_error([&] { import_onnx(text); });
  auto empty = dir / "empty.onnx";
  testing::write_bytes(empty, "");
  compile_error([&] { import_onnx(empty); });
}

TEST(Import, MissingFileIsAnError) {
  EXPECT_CONTAINS(compile_error([] { import_onnx("/nonexistent/kiln/model.onnx"); }), "/nonexistent/kiln/model.onnx");
}

TEST(Import, UnknownOpNamesTheNode) {
  TempDir dir("import");
  ModelBuilder m;
  m.input("x", {int64_t(4)}).output("y", {int64_t(4)});
  m.node("Relu", {"x"}, {"a"}, "ok");
  m.node("FrobnicateTensor", {"a"}, {"y"}, "mystery_node");
  auto path = m.write(dir / "m.onnx");
  // The ONNX checker rejects an op no opset defines, at import.
  std::string msg = compile_error([&] { import_onnx(path); });
  EXPECT_CONTAINS(msg, "FrobnicateTensor");
  EXPECT_CONTAINS(msg, "mystery_node");
}

TEST(Import, DynamicDimensionNeedsInputShape) {
  TempDir dir("import");
  ModelBuilder m;
  m.input("x", {std::string("N"), int64_t(3)}).output("y", {std::string("N"), int64_t(3)});
  m.node("Relu", {"x"}, {"y"}, "relu");
  auto path = m.write(dir / "m.onnx");
  std::string msg = compile_error([&] { import_onnx(path); });
  EXPECT_CONTAINS(msg, "'x'");
  EXPECT_CONTAINS(msg, "'N'");
  EXPECT_CONTAINS(msg, "--input-shape");

  ImportOptions o;
  o.input_shapes["x"] = {5, 3};
  auto g = import_onnx(path, o);
  EXPECT_EQ(g->inputs[0]->shape, (Shape{5, 3}));
  EXPECT_EQ(g->outputs[0]->shape, (Shape{5, 3}));  // inference propagates the fixed shape

  ImportOptions bad;
  bad.input_shapes["z"] = {1};
  EXPECT_CONTAINS(compile_error([&] { import_onnx(path, bad); }), "'z'");
}

TEST(Import, OpsetAboveTheSupportedRangeIsRejected) {
  TempDir dir("import");
  ModelBuilder m(kNewestOpset + 1);
  m.input("x", {int64_t(4)}).output("y", {int64_t(4)});
  m.node("Relu", {"x"}, {"y"}, "relu");
  std::string msg = compile_error([&] { import_onnx(m.write(dir / "m.onnx")); });
  EXPECT_CONTAINS(msg, "opset " + std::to_string(kNewestOpset + 1));
  EXPECT_CONTAINS(msg, std::to_string(kNewestOpset));
}

// Opsets 18..21 are brought down to opset-17 forms (onnx/newer_opsets.h); the
// models of tests/e2e/models/newer_opsets/ check the results against numpy.
TEST(Import, NewerOpsetIsImportedAtOpset17) {
  TempDir dir("import");
  ModelBuilder m(21);
  m.model.set_ir_version(10);
  m.input("x", {int64_t(2), int64_t(3)}).output("y", {int64_t(2)});
  *m.graph()->add_initializer() = ModelBuilder::int64_typed("axes", {1}, {1});
  m.node("ReduceMean", {"x", "axes"}, {"y"}, "mean");
  ModelBuilder::attr_int(m.graph()->mutable_node(0), "keepdims", 0);
  auto g = import_onnx(m.write(dir / "m.onnx"));
  EXPECT_EQ(g->opset, kMaxOpset);
  const Node& mean = *g->nodes.front();
  EXPECT_EQ(mean.op_type, "ReduceMean");
  EXPECT_EQ(mean.inputs.size(), 1u);
  EXPECT_EQ(mean.attr_ints("axes"), std::vector<int64_t>{1});
  EXPECT_EQ(g->outputs[0]->shape, (Shape{2}));
}

TEST(Import, NewerOpsetReduceAxesMustBeConstant) {
  TempDir dir("import");
  ModelBuilder m(18);
  m.input("x", {int64_t(2), int64_t(3)}).input("axes", {int64_t(1)}, onnx::TensorProto::INT64);
  m.output("y", {int64_t(2)});
  m.node("ReduceMax", {"x", "axes"}, {"y"}, "max_over_input_axes");
  std::string msg = compile_error([&] { import_onnx(m.write(dir / "m.onnx")); });
  EXPECT_CONTAINS(msg, "max_over_input_axes");
  EXPECT_CONTAINS(msg, "axes must be a compile-time constant");
}

TEST(Import, NewerOpsetOperatorWithoutAnOpset17FormNamesTheNode) {
  TempDir dir("import");
  ModelBuilder m(18);
  m.input("x", {int64_t(1), int64_t(4), int64_t(4)}).output("y", {int64_t(1), int64_t(1), int64_t(3), int64_t(3)});
  *m.graph()->add_initializer() = ModelBuilder::int64_typed("image", {2}, {3, 3});
  *m.graph()->add_initializer() = ModelBuilder::int64_typed("block", {2}, {2, 2});
  m.node("Col2Im", {"x", "image", "block"}, {"y"}, "fold_back");
  std::string msg = compile_error([&] { import_onnx(m.write(dir / "m.onnx")); });
  EXPECT_CONTAINS(msg, "Col2Im 'fold_back'");
  EXPECT_CONTAINS(msg, "not supported");
}

TEST(Import, NewerOpsetAttributeKilnCannotHonourNamesTheNode) {
  TempDir dir("import");
  ModelBuilder m(19);
  m.input("x", {int64_t(1), int64_t(1), int64_t(5), int64_t(5)});
  m.output("y", {int64_t(1), int64_t(1), int64_t(3), int64_t(3)});
  auto* n = m.node("AveragePool", {"x"}, {"y"}, "dilated_avg");
  ModelBuilder::attr_ints(n, "kernel_shape", {2, 2});
  ModelBuilder::attr_ints(n, "dilations", {2, 2});
  std::string msg = compile_error([&] { import_onnx(m.write(dir / "m.onnx")); });
  EXPECT_CONTAINS(msg, "dilated_avg");
  EXPECT_CONTAINS(msg, "dilations");
}

TEST(Import, ModelWithoutDefaultOpsetIsRejected) {
  TempDir dir("import");
  ModelBuilder m;
  m.model.mutable_opset_import(0)->set_domain("com.example");
  m.input("x", {int64_t(4)}).output("y", {int64_t(4)});
  m.node("Relu", {"x"}, {"y"}, "relu");
  EXPECT_CONTAINS(compile_error([&] { import_onnx(m.write(dir / "m.onnx")); }), "opset");
}

TEST(Import, UnsupportedDomainNamesTheNodeAndDomain) {
  TempDir dir("import");
  ModelBuilder m;
  auto* imp = m.model.add_opset_import();
  imp->set_domain("com.example");
  imp->set_version(1);
  m.input("x", {int64_t(4)}).output("y", {int64_t(4)});
  m.node("Relu", {"x"}, {"a"}, "relu");
  auto* n = m.node("Custom", {"a"}, {"y"}, "custom_op");
  n->set_domain("com.example");
  std::string msg = compile_error([&] { import_onnx(m.write(dir / "m.onnx")); });
  EXPECT_CONTAINS(msg, "custom_op");
  EXPECT_CONTAINS(msg, "com.example");
}

TEST(Import, MalformedInitializerNamesIt) {
  TempDir dir("import");
  onnx::TensorProto t = ModelBuilder::float_raw("w", {3}, {1, 2, 3});
  t.mutable_raw_data()->resize(8);  // 2 floats for a shape of 3
  std::string msg = compile_error([&] { import_onnx(add_relu_model(t).write(dir / "m.onnx")); });
  EXPECT_CONTAINS(msg, "'w'");
}

TEST(TensorProto, RoundTripThroughPbFile) {
  TempDir dir("import");
  auto c = Constant::from_floats({2, 2}, {1.f, -0.f, INFINITY, 1e-40f});
  write_tensor_pb(dir / "t.pb", "out", *c);
  std::string name;
  auto back = read_tensor_pb(dir / "t.pb", &name);
  EXPECT_EQ(name, "out");
  EXPECT_EQ(back->dtype(), DType::Float32);
  EXPECT_EQ(back->shape(), c->shape());
  EXPECT_EQ(std::memcmp(back->data(), c->data(), c->size_bytes()), 0);
}

TEST(TensorProto, TypedFieldsOfNarrowTypesFollowOnnxPacking) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT8);
  t.add_dims(3);
  for (int v : {-128, 5, 127}) t.add_int32_data(v);
  auto c = constant_from_tensor_proto(t, ".", "t");
  EXPECT_EQ(c->to_int64s(), (std::vector<int64_t>{-128, 5, 127}));

  onnx::TensorProto h;  // float16 bits live in int32_data
  h.set_data_type(onnx::TensorProto::FLOAT16);
  h.add_dims(2);
  h.add_int32_data(0x3c00);  // 1.0
  h.add_int32_data(0xc000);  // -2.0
  auto hc = constant_from_tensor_proto(h, ".", "h");
  EXPECT_EQ(hc->as_double(0), 1.0);
  EXPECT_EQ(hc->as_double(1), -2.0);

  onnx::TensorProto d;
  d.set_data_type(onnx::TensorProto::DOUBLE);
  d.add_dims(1);
  d.add_double_data(0.1);
  EXPECT_EQ(constant_from_tensor_proto(d, ".", "d")->as_double(0), 0.1);

  // An empty tensor in raw_data (ReduceL2's `axes` of opset 18 with no axes):
  // an empty constant, not a copy from a vector with no storage (found by make fuzz
  // under UBSan: memcpy to null with 0 bytes).
  onnx::TensorProto empty;
  empty.set_data_type(onnx::TensorProto::INT64);
  empty.add_dims(0);
  empty.set_raw_data("");
  auto ec = constant_from_tensor_proto(empty, ".", "empty");
  EXPECT_EQ(ec->shape(), (std::vector<int64_t>{0}));
  EXPECT_TRUE(ec->to_int64s().empty());

  onnx::TensorProto short_typed = ModelBuilder::int64_typed("s", {3}, {1, 2});
  EXPECT_CONTAINS(compile_error([&] { constant_from_tensor_proto(short_typed, ".", "tensor 's'"); }), "tensor 's'");

  onnx::TensorProto str;
  str.set_data_type(onnx::TensorProto::STRING);
  str.add_dims(1);
  str.add_string_data("hi");
  EXPECT_CONTAINS(compile_error([&] { constant_from_tensor_proto(str, ".", "tensor 'str'"); }), "tensor 'str'");
}

TEST(TensorProto, CorruptPbFileNamesTheFile) {
  TempDir dir("import");
  testing::write_bytes(dir / "bad.pb", std::string("\xff\xff\xff", 3));
  EXPECT_CONTAINS(compile_error([&] { read_tensor_pb(dir / "bad.pb"); }), (dir / "bad.pb").string());
}

}  // namespace
}  // namespace kiln
