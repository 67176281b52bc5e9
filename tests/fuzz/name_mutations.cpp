#include "name_mutations.h"

#include <onnx/onnx_pb.h>

#include <cctype>
#include <string>

#include "tflite/tflite_schema_generated.h"

namespace kiln::fuzz {

namespace {

// Names the C rule must change (docs/user-guide.md, "Names in the generated C").
const char* const kReserved[] = {"__LINE__", "__FILE__", "__DATE__", "__STDC__", "__STDC_VERSION__", "__func__",
                                 "INT32_MAX", "SIZE_MAX", "NULL", "int", "class", "_Bool", "KILN_OK", "FLT_MAX",
                                 "INFINITY", "errno", "offsetof", "size_t"};
constexpr size_t kNumReserved = sizeof(kReserved) / sizeof(kReserved[0]);

std::string swap_case(std::string s) {
  for (auto& c : s) c = char(std::islower(static_cast<unsigned char>(c)) ? std::toupper(c) : std::tolower(c));
  return s;
}

// The new name of kind `kind` for a value now called `old`, `other` being another
// graph name (to collide with).
std::string hostile_name(uint32_t kind, uint32_t pick, const std::string& old, const std::string& other) {
  switch (kind) {
    case 0: return kReserved[pick % kNumReserved];
    case 1: return swap_case(other) == other ? other + "\x01" : swap_case(other);  // equal after case folding
    case 2: return other + (pick % 2 ? "-" : " ");                                // "x-" and "x_" sanitize alike
    case 3: return old + "\n\x07\xe2\x80\xae" + old;                                // newline, BEL, U+202E
    case 4: return std::string(10240, char('a' + pick % 26));                       // 10 KB
    default: return "_" + swap_case(old);                                           // a leading "_" + capital
  }
}

void rename_in_graph(onnx::GraphProto& g, const std::string& from, const std::string& to) {
  for (auto& vi : *g.mutable_input())
    if (vi.name() == from) vi.set_name(to);
  for (auto& vi : *g.mutable_output())
    if (vi.name() == from) vi.set_name(to);
  for (auto& vi : *g.mutable_value_info())
    if (vi.name() == from) vi.set_name(to);
  for (auto& t : *g.mutable_initializer())
    if (t.name() == from) t.set_name(to);
  for (auto& n : *g.mutable_node()) {
    for (auto& s : *n.mutable_input())
      if (s == from) s = to;
    for (auto& s : *n.mutable_output())
      if (s == from) s = to;
  }
}

}  // namespace

bool mutate_onnx_name(std::vector<uint8_t>& model, uint32_t seed) {
  onnx::ModelProto m;
  if (!m.ParseFromArray(model.data(), int(model.size())) || !m.has_graph()) return false;
  onnx::GraphProto& g = *m.mutable_graph();
  std::vector<std::string> names;
  for (const auto& vi : g.input()) names.push_back(vi.name());
  for (const auto& vi : g.output()) names.push_back(vi.name());
  if (names.empty()) return false;
  const std::string& old = names[seed % names.size()];
  const std::string& other = names[(seed / 7 + 1) % names.size()];
  const std::string to = hostile_name((seed / 3) % kNameMutationKinds, seed / 11, old, other);
  const std::string from = old;
  rename_in_graph(g, from, to);
  std::string out;
  if (!m.SerializeToString(&out)) return false;
  model.assign(out.begin(), out.end());
  return true;
}

bool mutate_tflite_name(std::vector<uint8_t>& model, uint32_t seed) {
  flatbuffers::Verifier v(model.data(), model.size());
  if (!kiln::tflite_fb::VerifyModelBuffer(v)) return false;
  const auto* m = kiln::tflite_fb::GetModel(model.data());
  if (!m->subgraphs() || m->subgraphs()->size() == 0) return false;
  const auto* tensors = m->subgraphs()->Get(0)->tensors();
  if (!tensors || tensors->size() == 0) return false;
  const auto* t = tensors->Get(seed % tensors->size());
  const auto* other = tensors->Get((seed / 7 + 1) % tensors->size());
  if (!t->name() || t->name()->size() == 0 || !other->name()) return false;
  const size_t len = t->name()->size();
  std::string to = hostile_name((seed / 3) % kNameMutationKinds, seed / 11, t->name()->str(), other->name()->str());
  to.resize(len, '_');  // in place: the string keeps its length
  uint8_t* at = const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(t->name()->data()));
  for (size_t i = 0; i < len; ++i) at[i] = uint8_t(to[i] == 0 ? '_' : to[i]);
  return true;
}

}  // namespace kiln::fuzz
