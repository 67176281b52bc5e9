#include "name_mutations.h"

#include <onnx/onnx_pb.h>

#include <cctype>
#include <cstring>
#include <string>

#include "emit/c_names.h"
#include "tflite/tflite_schema_generated.h"

namespace kiln::fuzz {

namespace {

// Names the C rule must change (docs/user-guide.md, "Names in the generated C"):
// predefined macros, C and C++ keywords, names the standard headers define, Kiln's
// own prefix; and names it may keep but a careless rule would not (standard
// functions, which a member name never calls).
const char* const kReserved[] = {
    "__LINE__", "__FILE__", "__DATE__", "__STDC__", "__STDC_VERSION__", "__func__", "__COUNTER__", "INT32_MAX",
    "SIZE_MAX",  "NULL",     "int",      "class",    "_Bool",            "return",   "static",      "restrict",
    "inline",    "_Pragma",  "asm",      "template", "KILN_OK",          "kiln_run", "FLT_MAX",     "INFINITY",
    "NAN",       "errno",    "offsetof", "size_t",   "uint8_t",          "assert",   "linux",       "unix",
    "EOF",       "main",     "memcpy",   "malloc",   "printf",           "stdin",    "tanh",        "isnan"};
constexpr size_t kNumReserved = sizeof(kReserved) / sizeof(kReserved[0]);

std::string swap_case(std::string s) {
  for (auto& c : s) c = char(std::islower(static_cast<unsigned char>(c)) ? std::toupper(c) : std::tolower(c));
  return s;
}

// A name other than `other` that c_identifier() sanitizes to the same identifier:
// each byte outside [A-Za-z0-9] (and each '_') becomes another such byte; a name
// of letters and digits alone gets the "t_" prefix of a leading digit's rule, or a
// trailing '-' or '.' (no such name has a twin: the mutators then rename `other`
// to this name's sanitized form, "x-" beside "x_"; second_rename below).
std::string sanitize_twin(const std::string& other, uint32_t pick) {
  static const char kSeparators[] = "-./: ";
  std::string s = other;
  bool changed = false;
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      const char to = kSeparators[pick++ % 5];
      c = to == c ? '@' : to;
      changed = true;
    }
  if (changed) return s;
  if (!s.empty() && std::isdigit(static_cast<unsigned char>(s[0]))) return "t_" + s;
  return s + (pick % 2 ? "-" : ".");
}

// The new name of kind `kind` for a value now called `old`, `other` being another
// graph name (to collide with).
std::string hostile_name(uint32_t kind, uint32_t pick, const std::string& old, const std::string& other) {
  switch (kind) {
    case 0: return kReserved[pick % kNumReserved];
    case 1: return swap_case(other) == other ? other + "\x01" : swap_case(other);  // equal after case folding
    case 2: return sanitize_twin(other, pick);                                      // equal after sanitizing
    case 3: {                                                                       // control characters
      static const std::string kControls[] = {"\n\x07\xe2\x80\xae", "\r\t\x7f", std::string("\0\x01", 2), "\x1b[2J"};
      return old + kControls[pick % 4] + old;
    }
    case 4: return std::string(10240, char('a' + pick % 26));                       // 10 KB
    case 5: return "_" + swap_case(old);                                            // a leading "_" + capital
    case 6: {                                                                       // C syntax in a name
      static const char* const kSyntax[] = {"*/", "\"", "\\", "?" "?/" /* a trigraph */, "/*", "#define", "\\\n"};
      return old + kSyntax[pick % 7] + old;
    }
    default: return pick % 2 ? "" : " ";                                            // empty or blank
  }
}

// Kind 2's second rename: when the new name `to` and `other` do not sanitize alike,
// `other` becomes c_identifier(to), so two names still meet in one identifier.
std::string second_rename(uint32_t kind, const std::string& to, const std::string& old, const std::string& other) {
  if (kind != 2 || other == old || c_identifier(to) == c_identifier(other)) return {};
  return c_identifier(to);
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
  const uint32_t kind = name_mutation_kind(seed);
  const std::string to = hostile_name(kind, seed / 11, old, other);
  const std::string from = old, twin = second_rename(kind, to, old, other), other_from = other;
  rename_in_graph(g, from, to);
  if (!twin.empty()) rename_in_graph(g, other_from, twin);
  std::string out;
  if (!m.SerializeToString(&out)) return false;
  model.assign(out.begin(), out.end());
  return true;
}

namespace {

// Renames tensor `index` of subgraph 0 of a verified model: in place when the new
// name has the old one's length, else as a string appended to the buffer (a
// flatbuffer string: a 4-aligned uint32 length, the bytes, a NUL) that the
// tensor's name field, an offset relative to itself, is repointed to; the old
// string stays, unreferenced.
void rename_tflite_tensor(std::vector<uint8_t>& model, size_t index, const std::string& to) {
  const auto* t = kiln::tflite_fb::GetModel(model.data())->subgraphs()->Get(0)->tensors()->Get(uint32_t(index));
  if (to.size() == t->name()->size()) {
    std::memcpy(const_cast<char*>(t->name()->data()), to.data(), to.size());
    return;
  }
  const size_t field = size_t(reinterpret_cast<const flatbuffers::Table*>(t)->GetAddressOf(kiln::tflite_fb::Tensor::VT_NAME) -
                              model.data());
  const size_t at = (model.size() + 3) & ~size_t(3);
  const uint32_t length = uint32_t(to.size()), offset = uint32_t(at - field);
  model.resize(at + 4 + to.size() + 1, 0);
  std::memcpy(model.data() + at, &length, 4);  // flatbuffers are little-endian, as is every host Kiln runs on
  std::memcpy(model.data() + at + 4, to.data(), to.size());
  std::memcpy(model.data() + field, &offset, 4);
}

}  // namespace

bool mutate_tflite_name(std::vector<uint8_t>& model, uint32_t seed) {
  flatbuffers::Verifier v(model.data(), model.size());
  if (!kiln::tflite_fb::VerifyModelBuffer(v)) return false;
  const auto* m = kiln::tflite_fb::GetModel(model.data());
  if (!m->subgraphs() || m->subgraphs()->size() == 0) return false;
  const auto* tensors = m->subgraphs()->Get(0)->tensors();
  if (!tensors || tensors->size() == 0) return false;
  const size_t i = seed % tensors->size(), j = (seed / 7 + 1) % tensors->size();
  const auto* t = tensors->Get(uint32_t(i));
  const auto* o = tensors->Get(uint32_t(j));
  if (!t->name() || t->name()->size() == 0 || !o->name()) return false;
  const std::string old = t->name()->str(), other = o->name()->str();
  const uint32_t kind = name_mutation_kind(seed);
  const std::string to = hostile_name(kind, seed / 11, old, other);
  const std::string twin = i == j ? std::string() : second_rename(kind, to, old, other);
  rename_tflite_tensor(model, i, to);
  if (!twin.empty()) rename_tflite_tensor(model, j, twin);
  return true;
}

}  // namespace kiln::fuzz
