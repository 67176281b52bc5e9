// Einsum, float32 / float64: the equation is parsed at compile time into letter
// extents and per-operand strides (crt/include/kiln/einsum.h), so the kernel is one
// generic sum-of-products loop. Supports explicit and implicit output, repeated
// letters (diagonals), ellipsis broadcasting, and any number of summed letters.
#include <algorithm>
#include <cctype>
#include <map>

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

KernelCall einsum(const Node& n) {
  const DType dt = n.input(0) ? n.input(0)->dtype : DType::Undefined;
  if (dt != DType::Float32 && dt != DType::Float64)
    throw CompileError(n.describe() + ": Einsum supports float32 and float64 only");
  for (const Value* v : n.inputs) require_dtype(n, v, dt, "input");
  require_dtype(n, n.outputs.at(0), dt, "output");
  if (n.inputs.empty() || n.inputs.size() > kMaxOps)
    throw CompileError(n.describe() + ": Einsum with " + std::to_string(n.inputs.size()) + " operands (max " +
                       std::to_string(kMaxOps) + ")");

  std::string eq;
  for (char c : n.attr_string("equation", "")) if (c != ' ') eq += c;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(parse_term(n, lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != n.inputs.size())
    throw CompileError(n.describe() + ": equation " + in_quotes(eq) + " has " + std::to_string(terms.size()) +
                       " terms for " + std::to_string(n.inputs.size()) + " inputs");

  // Ellipsis rank per operand, and the broadcast ellipsis rank.
  std::vector<size_t> ell_rank(terms.size(), 0);
  size_t ell = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    const Shape& s = n.input(k)->shape;
    const size_t named = terms[k].letters.size() - (terms[k].has_ellipsis ? 1 : 0);
    if (s.size() < named || (!terms[k].has_ellipsis && s.size() != named))
      throw CompileError(n.describe() + ": term " + in_quotes(terms[k].letters) + " does not match input shape " +
                         shape_str(s));
    ell_rank[k] = s.size() - named;
    ell = std::max(ell, ell_rank[k]);
  }

  // Letter ids: ellipsis dims are 'E0'.. (encoded as 256 + i), letters their char code.
  std::map<int, int64_t> extent;
  std::map<int, int> count;  // how many operand dims use the letter
  auto use = [&](int id, int64_t size, bool broadcastable) {
    auto it = extent.find(id);
    if (it == extent.end() || (broadcastable && it->second == 1)) extent[id] = size;
    else if (it->second != size && !(broadcastable && size == 1))
      throw CompileError(n.describe() + ": letter " + in_quotes(id < 256 ? std::string(1, char(id)) : std::string("...")) +
                         " has sizes " + std::to_string(it->second) + " and " + std::to_string(size));
    ++count[id];
  };
  std::vector<std::vector<int>> dim_ids(terms.size());
  for (size_t k = 0; k < terms.size(); ++k) {
    const Shape& s = n.input(k)->shape;
    size_t d = 0;
    for (char c : terms[k].letters) {
      if (c == '.') {
        for (size_t e = 0; e < ell_rank[k]; ++e, ++d) {
          const int id = 256 + int(ell - ell_rank[k] + e);
          dim_ids[k].push_back(id);
          use(id, s[d], true);
        }
      } else {
        dim_ids[k].push_back(int(c));
        use(int(c), s[d], false);
        ++d;
      }
    }
  }

  // Output letters: explicit, or implicit (ellipsis dims, then letters used once, sorted).
  std::vector<int> out_ids;
  if (arrow != std::string::npos) {
    Term out = parse_term(n, eq.substr(arrow + 2));
    for (char c : out.letters) {
      if (c == '.') {
        for (size_t e = 0; e < ell; ++e) out_ids.push_back(256 + int(e));
        continue;
      }
      if (!extent.count(int(c)))
        throw CompileError(n.describe() + ": output letter " + in_quotes(std::string(1, c)) + " is not in any input");
      if (std::count(out_ids.begin(), out_ids.end(), int(c)))
        throw CompileError(n.describe() + ": output letter " + in_quotes(std::string(1, c)) + " repeats");
      out_ids.push_back(int(c));
    }
    // Ellipsis dims missing from an explicit output are summed like any other letter.
  } else {
    for (size_t e = 0; e < ell; ++e) out_ids.push_back(256 + int(e));
    for (const auto& [id, c] : count)
      if (id < 256 && c == 1) out_ids.push_back(id);
  }
  std::vector<int> ids = out_ids;
  for (const auto& [id, size] : extent)
    if (!std::count(ids.begin(), ids.end(), id)) ids.push_back(id);
  if (ids.size() > kMaxLetters)
    throw CompileError(n.describe() + ": equation " + in_quotes(eq) + " uses " + std::to_string(ids.size()) +
                       " indices (max " + std::to_string(kMaxLetters) + ")");

  Shape out_shape;
  for (int id : out_ids) out_shape.push_back(extent[id]);
  if (out_shape != n.outputs[0]->shape)
    throw CompileError(n.describe() + ": equation gives shape " + shape_str(out_shape) + " but the output is " +
                       shape_str(n.outputs[0]->shape));
  check_fits_32bit(n, out_shape);

  std::vector<int64_t> extents;
  for (int id : ids) extents.push_back(extent[id]);
  std::string strides = "{";
  for (size_t k = 0; k < terms.size(); ++k) {
    const Shape& s = n.input(k)->shape;
    check_fits_32bit(n, s);
    std::vector<int64_t> st(ids.size(), 0);
    int64_t acc = 1;
    for (size_t d = s.size(); d-- > 0;) {
      const size_t pos = size_t(std::find(ids.begin(), ids.end(), dim_ids[k][d]) - ids.begin());
      if (s[d] != 1 || extent[dim_ids[k][d]] == 1) st[pos] += acc;  // a broadcast size-1 dim stays 0
      acc *= s[d];
    }
    strides += std::string(k ? ", " : " ") + c_int_array(st);
  }
  strides += " }";

  KernelCall k;
  k.params_type = "kiln_einsum_params_t";
  k.params_init = ParamsInit()
                      .u("nops", int64_t(terms.size()))
                      .u("nidx", int64_t(ids.size()))
                      .u("nout", int64_t(out_ids.size()))
                      .ints("extent", extents.empty() ? std::vector<int64_t>{0} : extents)
                      .raw("stride", strides)
                      .str();
  k.call = std::string("kiln_einsum_") + (dt == DType::Float32 ? "f32" : "f64") + "(&$params, $inptrs, $out0)";
  return k;
}

}  // namespace

void register_einsum_lowerings() { register_lowering("Einsum", einsum); }

}  // namespace kiln
