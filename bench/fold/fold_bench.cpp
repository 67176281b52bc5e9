// Folding benchmark (numbers, not pass/fail; see docs/folding.md):
//
//   fold_bench gen-chains FILE     ~800 element-wise binary ops over constants,
//                                  ~50 M float32 elements of initializers, with
//                                  transposes, reshapes and casts in the chains
//   fold_bench gen-resnet50 FILE   ResNet-50 topology (Conv+BN+Relu, ~25.6 M
//                                  parameters, random weights)
//   fold_bench run FILE [--no-gc]  import + fold (+ round every result to its
//                                  emitted bytes), printing time and peak RSS
//                                  (VmHWM) next to the model's initializer bytes
//
// Each run is its own process so that VmHWM (a high-water mark) belongs to it.
#include <onnx/onnx_pb.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "driver/pipeline.h"
#include "fold/fold.h"
#include "onnx/onnx_importer.h"

namespace {

using namespace kiln;

long status_kb(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) return std::stol(line.substr(std::strlen(key)));
  return -1;
}
double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

struct ModelWriter {
  onnx::ModelProto m;
  onnx::GraphProto* g;
  std::mt19937 rng{42};
  uint64_t init_bytes = 0;
  int counter = 0;

  ModelWriter() {
    m.set_ir_version(8);
    auto* op = m.add_opset_import();
    op->set_domain("");
    op->set_version(13);
    g = m.mutable_graph();
    g->set_name("bench");
  }
  std::string fresh(const std::string& p) { return p + std::to_string(counter++); }
  std::string init(const std::vector<int64_t>& dims, float lo, float hi) {
    auto* t = g->add_initializer();
    std::string name = fresh("w");
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (auto d : dims) t->add_dims(d), n *= d;
    std::vector<float> v(static_cast<size_t>(n));
    std::uniform_real_distribution<float> dist(lo, hi);
    for (auto& x : v) x = dist(rng);
    t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
    init_bytes += uint64_t(n) * 4;
    return name;
  }
  std::string init_i64(const std::vector<int64_t>& v) {
    auto* t = g->add_initializer();
    std::string name = fresh("s");
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(int64_t(v.size()));
    t->set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * 8));
    return name;
  }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& ins, std::string* out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(fresh(op + "_"));
    for (const auto& i : ins) n->add_input(i);
    *out = fresh("t");
    n->add_output(*out);
    return n;
  }
  static void attr_int(onnx::NodeProto* n, const std::string& k, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(k);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr_ints(onnx::NodeProto* n, const std::string& k, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(k);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
  }
  static void attr_float(onnx::NodeProto* n, const std::string& k, float v) {
    auto* a = n->add_attribute();
    a->set_name(k);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  void output(const std::string& name, const std::vector<int64_t>& dims) {
    auto* o = g->add_output();
    o->set_name(name);
    auto* tt = o->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  void input(const std::string& name, const std::vector<int64_t>& dims) {
    auto* o = g->add_input();
    o->set_name(name);
    auto* tt = o->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  void save(const std::string& file) {
    std::ofstream f(file, std::ios::binary);
    if (!m.SerializeToOstream(&f)) throw std::runtime_error("cannot write " + file);
  }
};

// 100 chains x 8 binary ops over [8,96,72] constants (9 per chain: 49.8 M floats),
// each chain with a Transpose, a Reshape and a Cast pair (float64 and back).
void gen_chains(const std::string& file) {
  ModelWriter w;
  const int chains = 100, ops = 8;
  const char* kinds[] = {"Add", "Mul", "Sub", "Div"};
  for (int c = 0; c < chains; ++c) {
    std::vector<int64_t> shape = {8, 96, 72};
    std::string t = w.init(shape, 0.5f, 1.5f);
    for (int j = 0; j < ops; ++j) {
      std::string k = w.init(shape, 0.5f, 1.5f);
      std::string o;
      w.node(kinds[j % 4], {t, k}, &o);
      t = o;
      if (j == 1) {  // layout change mid-chain: constants after it follow the new shape
        auto* n = w.node("Transpose", {t}, &o);
        ModelWriter::attr_ints(n, "perm", {0, 2, 1});
        t = o, shape = {8, 72, 96};
      } else if (j == 3) {
        w.node("Reshape", {t, w.init_i64({576, 96})}, &o);
        t = o, shape = {576, 96};
      } else if (j == 5) {
        auto* n = w.node("Cast", {t}, &o);
        ModelWriter::attr_int(n, "to", onnx::TensorProto::DOUBLE);
        auto* n2 = w.node("Cast", {o}, &t);
        ModelWriter::attr_int(n2, "to", onnx::TensorProto::FLOAT);
      }
    }
    w.output(t, shape);
  }
  w.save(file);
  std::cout << "fold_bench: wrote " << file << " (" << chains * ops << " binary ops, " << w.init_bytes
            << " initializer bytes)\n";
}

// ResNet-50: stem, bottleneck stages [3,4,6,3], every Conv followed by a
// BatchNormalization (folded into the Conv by the pass), then GAP + Gemm.
void gen_resnet50(const std::string& file) {
  ModelWriter w;
  w.input("input", {1, 3, 224, 224});
  auto conv_bn = [&](const std::string& x, int64_t cin, int64_t cout, int64_t k, int64_t stride, bool relu) {
    std::string o;
    float bound = 1.0f / std::sqrt(float(cin * k * k));
    auto* n = w.node("Conv", {x, w.init({cout, cin, k, k}, -bound, bound)}, &o);
    ModelWriter::attr_ints(n, "kernel_shape", {k, k});
    ModelWriter::attr_ints(n, "strides", {stride, stride});
    ModelWriter::attr_ints(n, "pads", {k / 2, k / 2, k / 2, k / 2});
    std::string y;
    auto* bn = w.node("BatchNormalization",
                      {o, w.init({cout}, 0.5f, 1.5f), w.init({cout}, -0.1f, 0.1f), w.init({cout}, -0.1f, 0.1f),
                       w.init({cout}, 0.5f, 1.5f)},
                      &y);
    ModelWriter::attr_float(bn, "epsilon", 1e-5f);
    if (!relu) return y;
    std::string r;
    w.node("Relu", {y}, &r);
    return r;
  };
  std::string x = conv_bn("input", 3, 64, 7, 2, true), p;
  auto* mp = w.node("MaxPool", {x}, &p);
  ModelWriter::attr_ints(mp, "kernel_shape", {3, 3});
  ModelWriter::attr_ints(mp, "strides", {2, 2});
  ModelWriter::attr_ints(mp, "pads", {1, 1, 1, 1});
  x = p;
  int64_t cin = 64;
  const int blocks[] = {3, 4, 6, 3};
  for (int s = 0; s < 4; ++s) {
    int64_t width = 64 << s, cout = width * 4;
    for (int b = 0; b < blocks[s]; ++b) {
      int64_t stride = (b == 0 && s > 0) ? 2 : 1;
      std::string y = conv_bn(x, cin, width, 1, 1, true);
      y = conv_bn(y, width, width, 3, stride, true);
      y = conv_bn(y, width, cout, 1, 1, false);
      std::string sc = (b == 0) ? conv_bn(x, cin, cout, 1, stride, false) : x;
      std::string sum, r;
      w.node("Add", {y, sc}, &sum);
      w.node("Relu", {sum}, &r);
      x = r, cin = cout;
    }
  }
  std::string gap, flat, logits;
  w.node("GlobalAveragePool", {x}, &gap);
  auto* fl = w.node("Flatten", {gap}, &flat);
  ModelWriter::attr_int(fl, "axis", 1);
  auto* gm = w.node("Gemm", {flat, w.init({1000, 2048}, -0.02f, 0.02f), w.init({1000}, -0.1f, 0.1f)}, &logits);
  ModelWriter::attr_int(gm, "transB", 1);
  w.output(logits, {1, 1000});
  w.save(file);
  std::cout << "fold_bench: wrote " << file << " (ResNet-50, " << w.init_bytes / 4 << " parameters, " << w.init_bytes
            << " initializer bytes)\n";
}

int run(const std::string& file, bool gc) {
  long base_kb = status_kb("VmRSS:");
  auto t0 = std::chrono::steady_clock::now();
  auto graph = import_onnx(file, {});
  auto t1 = std::chrono::steady_clock::now();
  uint64_t init_bytes = 0;
  for (const auto& v : graph->values())
    if (v->constant) init_bytes += v->constant->size_bytes();
  long import_hwm = status_kb("VmHWM:");
  FoldOptions fo;
  fo.gc = gc;
  fo.size_limit_bytes = int64_t(1) << 30;
  // The settle pass of the compile pipeline (driver/pipeline.h): folding and what
  // alternates with it, as `kiln compile` runs them.
  PipelineOptions po;
  po.fold_options = fo;
  PipelineState state;
  state.graph = graph.get();
  run_pipeline(state, po, PassId::Settle);
  const FoldReport& r = state.fold_report;
  auto t2 = std::chrono::steady_clock::now();
  long fold_hwm = status_kb("VmHWM:");
  // What emission does with every constant: round it to its bytes (block by block).
  uint64_t emitted = 0;
  std::vector<uint8_t> scratch;
  for (const auto& v : graph->values())
    if (v->constant && (!v->users.empty() || v->is_graph_output)) {
      scratch.resize(v->constant->size_bytes());
      v->constant->write_bytes(scratch.data());
      emitted += scratch.size();
    }
  auto t3 = std::chrono::steady_clock::now();
  long emit_hwm = status_kb("VmHWM:");
  auto sec = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  std::printf("model: %s (gc %s)\n", file.c_str(), gc ? "on" : "off");
  std::printf("  initializer bytes:      %10.1f MiB\n", mib(double(init_bytes)));
  std::printf("  nodes: %zu -> %zu, constants %.1f -> %.1f MiB emitted, pool: %llu created (%.1f MiB), %llu released (%.1f MiB), peak live %.1f MiB\n",
              r.nodes_before, r.nodes_after, mib(double(r.constant_bytes_before)), mib(double(r.constant_bytes_after)),
              (unsigned long long)r.constants_created, mib(double(r.constants_created_bytes)),
              (unsigned long long)r.constants_released, mib(double(r.constants_released_bytes)),
              mib(double(r.peak_live_fold_bytes)));
  std::printf("  import: %.3f s   fold: %.3f s   round to emitted bytes: %.3f s (%.1f MiB)\n", sec(t0, t1), sec(t1, t2),
              sec(t2, t3), mib(double(emitted)));
  std::printf("  peak RSS (VmHWM): start %.1f MiB, after import %.1f MiB, after fold %.1f MiB, after rounding %.1f MiB\n",
              base_kb / 1024.0, import_hwm / 1024.0, fold_hwm / 1024.0, emit_hwm / 1024.0);
  std::printf("  peak RSS / initializer bytes: %.2f after fold (%.2f without the %.1f MiB process baseline), %.2f with rounding\n",
              fold_hwm * 1024.0 / double(init_bytes), (fold_hwm - base_kb) * 1024.0 / double(init_bytes),
              base_kb / 1024.0, emit_hwm * 1024.0 / double(init_bytes));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "gen-chains" && argc == 3) return gen_chains(argv[2]), 0;
    if (cmd == "gen-resnet50" && argc == 3) return gen_resnet50(argv[2]), 0;
    if (cmd == "run" && argc >= 3) return run(argv[2], !(argc == 4 && std::string(argv[3]) == "--no-gc"));
    std::cerr << "usage: fold_bench gen-chains FILE | gen-resnet50 FILE | run FILE [--no-gc]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fold_bench: " << e.what() << "\n";
    return 1;
  }
}
