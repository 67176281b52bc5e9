// Einsum, float32 / float64: the equation is parsed at compile time into letter
// extents and per-operand strides (crt/include/kiln/einsum.h), so the kernel is one
// generic sum-of-products loop. Supports explicit and implicit output, repeated
// letters (diagonals), ellipsis broadcasting, and any number of summed letters.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

constexpr size_t kMaxOps = 4;       // KILN_EINSUM_MAX_OPS
constexpr size_t kMaxLetters = 16;  // KILN_EINSUM_MAX_LETTERS

// One operand's subscripts: letter ids per dim once the ellipsis is expanded.
struct Term {
  std::string letters;  // as written, with '.' for each '...'
  bool has_ellipsis = false;
};

Term parse_term(const Node& n, const std::string& t) {
  Term term;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '.') {
      if (term.has_ellipsis || t.compare(i, 3, "...") != 0)
        throw CompileError(n.describe() + ": malformed ellipsis in equation term " + in_quotes(t));
      term.has_ellipsis = true;
      term.letters += '.';
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(t[i]))) {
      term.letters += t[i];
    } else {
      throw CompileError(n.describe() + ": unexpected character " + in_quotes(std::string(1, t[i])) + " in equation");
    }
  }
  return term;
}

// The equation without spaces, its input terms (one per operand) and the text of
// its output term when explicit ("->"; parsed once the inputs' letters are known).
struct Equation {
  std::string text;
  std::vector<Term> inputs;
  std::optional<std::string> output;
};

Equation parse_equation(const Node& n) {
  Equation e;
  for (char c : n.attr_string("equation", "")) if (c != ' ') e.text += c;
  const size_t arrow = e.text.find("->");
  const std::string lhs = e.text.substr(0, arrow);
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    e.inputs.push_back(parse_term(n, lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (e.inputs.size() != n.inputs.size())
    throw CompileError(n.describe() + ": equation " + in_quotes(e.text) + " has " + std::to_string(e.inputs.size()) +
                       " terms for " + std::to_string(n.inputs.size()) + " inputs");
  if (arrow != std::string::npos) e.output = e.text.substr(arrow + 2);
  return e;
}

// Letter ids: ellipsis dims are 'E0'.. (encoded as 256 + i), letters their char code.
struct Letters {
  size_t ellipsis_rank = 0;                // the broadcast rank of the ellipsis dims
  std::map<int, int64_t> extent;           // per letter id
  std::map<int, int> count;                // how many operand dims use the letter
  std::vector<std::vector<int>> dim_ids;   // per operand, the letter id of each dim
};

// The letters of the input terms against the operands' shapes: each letter's
// extent (equal wherever it appears; ellipsis dims broadcast).
Letters read_letters(const Node& n, const std::vector<Term>& terms) {
  Letters l;
  // Ellipsis rank per operand, and the broadcast ellipsis rank.
  std::vector<size_t> ell_rank(terms.size(), 0);
  for (size_t k = 0; k < terms.size(); ++k) {
    const Shape& s = n.input(k)->shape;
    const size_t named = terms[k].letters.size() - (terms[k].has_ellipsis ? 1 : 0);
    if (s.size() < named || (!terms[k].has_ellipsis && s.size() != named))
      throw CompileError(n.describe() + ": term " + in_quotes(terms[k].letters) + " does not match input shape " +
                         shape_str(s));
    ell_rank[k] = s.size() - named;
    l.ellipsis_rank = std::max(l.ellipsis_rank, ell_rank[k]);
  }
  auto use = [&](int id, int64_t size, bool broadcastable) {
    auto it = l.extent.find(id);
    if (it == l.extent.end() || (broadcastable && it->second == 1)) l.extent[id] = size;
    else if (it->second != size && !(broadcastable && size == 1))
      throw CompileError(n.describe() + ": letter " + in_quotes(id < 256 ? std::string(1, char(id)) : std::string("...")) +
                         " has sizes " + std::to_string(it->second) + " and " + std::to_string(size));
    ++l.count[id];
  };
  l.dim_ids.resize(terms.size());
  for (size_t k = 0; k < terms.size(); ++k) {
    const Shape& s = n.input(k)->shape;
    size_t d = 0;
    for (char c : terms[k].letters) {
      if (c == '.') {
        for (size_t e = 0; e < ell_rank[k]; ++e, ++d) {
          const int id = 256 + int(l.ellipsis_rank - ell_rank[k] + e);
          l.dim_ids[k].push_back(id);
          use(id, s[d], true);
        }
      } else {
        l.dim_ids[k].push_back(int(c));
        use(int(c), s[d], false);
        ++d;
      }
    }
  }
  return l;
}

// Output letters: explicit, or implicit (ellipsis dims, then letters used once, sorted).
std::vector<int> output_letters(const Node& n, const Equation& eq, const Letters& l) {
  std::vector<int> out_ids;
  if (!eq.output) {
    for (size_t e = 0; e < l.ellipsis_rank; ++e) out_ids.push_back(256 + int(e));
    for (const auto& [id, c] : l.count)
      if (id < 256 && c == 1) out_ids.push_back(id);
    return out_ids;
  }
  for (char c : parse_term(n, *eq.output).letters) {
    if (c == '.') {
      for (size_t e = 0; e < l.ellipsis_rank; ++e) out_ids.push_back(256 + int(e));
      continue;
    }
    if (!l.extent.count(int(c)))
      throw CompileError(n.describe() + ": output letter " + in_quotes(std::string(1, c)) + " is not in any input");
    if (std::count(out_ids.begin(), out_ids.end(), int(c)))
      throw CompileError(n.describe() + ": output letter " + in_quotes(std::string(1, c)) + " repeats");
    out_ids.push_back(int(c));
  }
  // Ellipsis dims missing from an explicit output are summed like any other letter.
  return out_ids;
}

// Per operand, its element stride for each index of `ids` (0 for an index it does
// not have, and for a broadcast size-1 dim): the kernel's stride table.
std::string operand_strides(const Node& n, const std::vector<int>& ids, const Letters& l) {
  std::string strides = "{";
  for (size_t k = 0; k < l.dim_ids.size(); ++k) {
    const Shape& s = n.input(k)->shape;
    check_fits_32bit(n, s);
    std::vector<int64_t> st(ids.size(), 0);
    int64_t acc = 1;
    for (size_t d = s.size(); d-- > 0;) {
      const size_t pos = size_t(std::find(ids.begin(), ids.end(), l.dim_ids[k][d]) - ids.begin());
      if (s[d] != 1 || l.extent.at(l.dim_ids[k][d]) == 1) st[pos] += acc;  // a broadcast size-1 dim stays 0
      acc *= s[d];
    }
    strides += std::string(k ? ", " : " ") + c_int_array(st);
  }
  return strides + " }";
}

KernelCall einsum(const Node& n) {
  const DType dt = n.input(0) ? n.input(0)->dtype : DType::Undefined;
  if (dt != DType::Float32 && dt != DType::Float64)
    throw CompileError(n.describe() + ": Einsum supports float32 and float64 only");
  for (const Value* v : n.inputs) require_dtype(n, v, dt, "input");
  require_dtype(n, n.outputs.at(0), dt, "output");
  if (n.inputs.empty() || n.inputs.size() > kMaxOps)
    throw CompileError(n.describe() + ": Einsum with " + std::to_string(n.inputs.size()) + " operands (max " +
                       std::to_string(kMaxOps) + ")");
  const Equation eq = parse_equation(n);
  const Letters letters = read_letters(n, eq.inputs);
  const std::vector<int> out_ids = output_letters(n, eq, letters);
  // Every index: the output's first, then the summed ones.
  std::vector<int> ids = out_ids;
  for (const auto& [id, size] : letters.extent)
    if (!std::count(ids.begin(), ids.end(), id)) ids.push_back(id);
  if (ids.size() > kMaxLetters)
    throw CompileError(n.describe() + ": equation " + in_quotes(eq.text) + " uses " + std::to_string(ids.size()) +
                       " indices (max " + std::to_string(kMaxLetters) + ")");

  Shape out_shape;
  for (int id : out_ids) out_shape.push_back(letters.extent.at(id));
  if (out_shape != n.outputs[0]->shape)
    throw CompileError(n.describe() + ": equation gives shape " + shape_str(out_shape) + " but the output is " +
                       shape_str(n.outputs[0]->shape));
  check_fits_32bit(n, out_shape);

  std::vector<int64_t> extents;
  for (int id : ids) extents.push_back(letters.extent.at(id));
  KernelCall k;
  k.params_type = "kiln_einsum_params_t";
  k.params_init = ParamsInit()
                      .u("nops", int64_t(eq.inputs.size()))
                      .u("nidx", int64_t(ids.size()))
                      .u("nout", int64_t(out_ids.size()))
                      .ints("extent", extents.empty() ? std::vector<int64_t>{0} : extents)
                      .raw("stride", operand_strides(n, ids, letters))
                      .str();
  k.call = std::string("kiln_einsum_") + (dt == DType::Float32 ? "f32" : "f64") + "(&$params, $inptrs, $out0)";
  return k;
}

}  // namespace

void register_einsum_lowerings() { register_lowering("Einsum", einsum); }

}  // namespace kiln
