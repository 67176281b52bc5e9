#include "catalog.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <fstream>

namespace kiln::conformance {

namespace fs = std::filesystem;

const std::vector<std::string>& default_suites() {
  static const std::vector<std::string> v = {"node", "pytorch-converted", "pytorch-operator", "simple"};
  return v;
}

namespace {

void collect_ops(const onnx::GraphProto& g, std::set<std::string>* ops) {
  for (const auto& n : g.node()) {
    bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    ops->insert(default_domain ? n.op_type() : n.domain() + "." + n.op_type());
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_ops(a.g(), ops);
      for (const auto& sub : a.graphs()) collect_ops(sub, ops);
    }
  }
}

bool is_float32_tensor(const onnx::ValueInfoProto& vi) {
  return vi.type().has_tensor_type() && vi.type().tensor_type().elem_type() == onnx::TensorProto::FLOAT;
}

void read_model(TestEntry* t) {
  std::ifstream in(t->dir / "model.onnx", std::ios::binary);
  onnx::ModelProto model;
  if (!in || !model.ParseFromIstream(&in)) {
    t->model_error = "model.onnx could not be parsed";
    return;
  }
  const auto& g = model.graph();
  collect_ops(g, &t->ops);
  std::set<std::string> initializers;
  for (const auto& i : g.initializer()) initializers.insert(i.name());
  bool f32 = g.output_size() > 0;
  for (const auto& vi : g.input())
    if (!initializers.count(vi.name())) f32 &= is_float32_tensor(vi);
  for (const auto& vi : g.output()) f32 &= is_float32_tensor(vi);
  t->float32_only = f32;
}

}  // namespace

std::vector<TestEntry> discover_tests(const fs::path& root, const std::vector<std::string>& suites) {
  std::vector<TestEntry> tests;
  for (const auto& suite : suites) {
    std::error_code ec;
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(root / suite, ec))
      if (e.is_directory() && fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs) {
      TestEntry t;
      t.suite = suite;
      t.name = d.filename().string();
      t.dir = d;
      t.data_bytes = fs::file_size(d / "model.onnx");
      for (const auto& e : fs::directory_iterator(d))
        if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
          t.data_sets.push_back(e.path());
          for (const auto& f : fs::directory_iterator(e.path()))
            if (f.is_regular_file()) t.data_bytes += f.file_size();
        }
      // test_data_set_10 after test_data_set_9.
      std::sort(t.data_sets.begin(), t.data_sets.end(), [](const fs::path& a, const fs::path& b) {
        auto num = [](const fs::path& p) { return std::stol(p.filename().string().substr(14)); };
        return num(a) < num(b);
      });
      read_model(&t);
      tests.push_back(std::move(t));
    }
  }
  return tests;
}

}  // namespace kiln::conformance
