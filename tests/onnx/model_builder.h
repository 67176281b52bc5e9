// Small helpers to build ONNX models in C++ with ONNX's own protobuf classes and
// write them to a private temporary folder (shared by the import and driver tests).
#pragma once

#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

namespace kiln::testing {

namespace fs = std::filesystem;

// A dimension is a number or a symbolic name ("N").
using Dim = std::variant<int64_t, std::string>;

// A fresh empty folder under the system temp folder, removed when this goes away.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("kiln_test_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 13) {
    model.set_ir_version(onnx::IR_VERSION);
    model.set_producer_name("kiln-tests");
    auto* imp = model.add_opset_import();
    imp->set_domain("");
    imp->set_version(opset);
    graph()->set_name("test_graph");
  }

  onnx::GraphProto* graph() { return model.mutable_graph(); }

  static void set_type(onnx::ValueInfoProto* vi, const std::string& name, int32_t elem, const std::vector<Dim>& dims) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (const auto& d : dims) {
      auto* dim = shape->add_dim();
      if (std::holds_alternative<int64_t>(d)) dim->set_dim_value(std::get<int64_t>(d));
      else dim->set_dim_param(std::get<std::string>(d));
    }
  }

  ModelBuilder& input(const std::string& name, const std::vector<Dim>& dims, int32_t elem = onnx::TensorProto::FLOAT) {
    set_type(graph()->add_input(), name, elem, dims);
    return *this;
  }
  ModelBuilder& output(const std::string& name, const std::vector<Dim>& dims, int32_t elem = onnx::TensorProto::FLOAT) {
    set_type(graph()->add_output(), name, elem, dims);
    return *this;
  }

  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& ins,
                        const std::vector<std::string>& outs, const std::string& name = "") {
    auto* n = graph()->add_node();
    n->set_op_type(op);
    if (!name.empty()) n->set_name(name);
    for (const auto& i : ins) n->add_input(i);
    for (const auto& o : outs) n->add_output(o);
    return n;
  }

  static void attr_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
  }
  static void attr_float(onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void attr_floats(onnx::NodeProto* n, const std::string& name, const std::vector<float>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOATS);
    for (auto x : v) a->add_floats(x);
  }
  static void attr_tensor(onnx::NodeProto* n, const std::string& name, const onnx::TensorProto& t) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = t;
  }

  // A float tensor with its elements in raw_data (little-endian, as on the host).
  static onnx::TensorProto float_raw(const std::string& name, const std::vector<int64_t>& dims,
                                     const std::vector<float>& v) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t.add_dims(d);
    t.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
    return t;
  }
  static onnx::TensorProto float_typed(const std::string& name, const std::vector<int64_t>& dims,
                                       const std::vector<float>& v) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t.add_dims(d);
    for (auto x : v) t.add_float_data(x);
    return t;
  }
  static onnx::TensorProto int64_typed(const std::string& name, const std::vector<int64_t>& dims,
                                       const std::vector<int64_t>& v) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::INT64);
    for (auto d : dims) t.add_dims(d);
    for (auto x : v) t.add_int64_data(x);
    return t;
  }

  ModelBuilder& initializer(const onnx::TensorProto& t) {
    *graph()->add_initializer() = t;
    return *this;
  }

  fs::path write(const fs::path& file) const {
    std::ofstream out(file, std::ios::binary);
    model.SerializeToOstream(&out);
    return file;
  }
  std::string bytes() const { return model.SerializeAsString(); }

  onnx::ModelProto model;
};

inline void write_bytes(const fs::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

}  // namespace kiln::testing
