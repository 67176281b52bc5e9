// Importing without copying weights: large initializers are slices of the mapped
// model file; external data files are mapped too.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "onnx/onnx_importer.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

void add_float_init(onnx::GraphProto* g, const std::string& name, const std::vector<float>& v) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(int64_t(v.size()));
  t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
}

TEST(ImportZeroCopy, LargeInitializersAreSlicesOfTheModelFile) {
  fs::path dir = fs::temp_directory_path() / ("kiln_fold_import_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  std::vector<float> big(5000), small = {1, 2, 3};
  for (size_t i = 0; i < big.size(); ++i) big[i] = float(i) * 0.5f;
  add_float_init(g, "big", big);
  add_float_init(g, "small", small);
  auto* n = g->add_node();
  n->set_op_type("Add");
  n->add_input("big");
  n->add_input("big");
  n->add_output("y");
  auto* o = g->add_output();
  o->set_name("y");
  o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  o->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(5000);
  {
    std::ofstream f(dir / "m.onnx", std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&f));
  }
  auto graph = import_onnx(dir / "m.onnx", {});
  Value* b = graph->find_value("big");
  ASSERT_TRUE(b && b->constant);
  EXPECT_EQ(b->constant->buffer()->origin(), ConstantBuffer::Origin::ModelData);
  EXPECT_EQ(b->constant->to_doubles()[4999], 4999 * 0.5);
  EXPECT_EQ(b->constant->num_elements(), 5000);
  Value* s = graph->find_value("small");
  ASSERT_TRUE(s && s->constant);
  EXPECT_EQ(s->constant->buffer()->origin(), ConstantBuffer::Origin::Owned);  // small: parsed
  EXPECT_EQ(s->constant->to_doubles(), (std::vector<double>{1, 2, 3}));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kiln
