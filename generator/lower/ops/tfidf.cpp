// TfIdfVectorizer over int32/int64 token ids, lowered to crt/include/kiln/text.h.
// The n-gram pool, the output columns and the weights are attributes, so they go
// into the kernel's parameter struct as static arrays (C99 compound literals).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "lower/lower_util.h"
#include "lower/ops/ops.h"
#include "util/error.h"
#include "util/quoted.h"

namespace kiln {

namespace {

constexpr int64_t kMaxGram = 8;  // KILN_TFIDF_MAX_GRAM

std::string int64_literal(int64_t v) {
  if (v == INT64_MIN) return "(-9223372036854775807LL - 1)";
  return std::to_string(v) + "LL";
}

template <typename F>
std::string compound(const char* type, size_t n, F item) {
  std::string s = std::string("(const ") + type + "[]){";
  for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + item(i);
  if (n == 0) s += "0";
  return s + "}";
}

KernelCall tfidf_vectorizer(const Node& n) {
  const Value* x = n.input(0);
  const Value* y = n.outputs.at(0);
  if (x->dtype != DType::Int32 && x->dtype != DType::Int64)
    throw CompileError(n.describe() + ": input dtype " + dtype_name(x->dtype) +
                       " is not supported (int32 or int64 token ids; strings are not)");
  require_dtype(n, y, DType::Float32, "output");
  if (x->shape.empty() || x->shape.size() > 2) throw CompileError(n.describe() + ": input must be 1-D or 2-D");
  check_fits_32bit(n, x->shape);
  if (n.has_attr("pool_strings")) throw CompileError(n.describe() + ": pool_strings is not supported (no string tensors)");

  const std::string mode = n.attr_string("mode", "");
  int64_t mode_id = mode == "TF" ? 0 : mode == "IDF" ? 1 : mode == "TFIDF" ? 2 : -1;
  if (mode_id < 0) throw CompileError(n.describe() + ": mode " + in_quotes(mode) + " is not TF, IDF or TFIDF");
  const int64_t min_gram = n.attr_int("min_gram_length", 0), max_gram = n.attr_int("max_gram_length", 0);
  const int64_t max_skip = n.attr_int("max_skip_count", 0);
  if (min_gram < 1 || max_gram < min_gram)
    throw CompileError(n.describe() + ": min_gram_length " + std::to_string(min_gram) + " / max_gram_length " +
                       std::to_string(max_gram) + " are not 1 <= min <= max");
  if (max_gram > kMaxGram)
    throw CompileError(n.describe() + ": max_gram_length " + std::to_string(max_gram) + " exceeds Kiln's limit of " +
                       std::to_string(kMaxGram));
  if (max_skip < 0 || max_skip > INT32_MAX) throw CompileError(n.describe() + ": max_skip_count out of range");
  const std::vector<int64_t> counts = n.attr_ints("ngram_counts");
  const std::vector<int64_t> indexes = n.attr_ints("ngram_indexes");
  const std::vector<int64_t> pool = n.attr_ints("pool_int64s");
  const std::vector<double> weights = n.attr_floats("weights");

  // Per length L: the n-grams of length L are pool[counts[L-1] .. next), next being
  // counts[L] or the pool's end; their ids continue from the shorter lengths'.
  std::vector<int64_t> gram_count(kMaxGram, 0), gram_offset(kMaxGram, 0), gram_id(kMaxGram, 0);
  int64_t id = 0;
  for (size_t l = 0; l < counts.size(); ++l) {
    const int64_t begin = counts[l];
    const int64_t end = l + 1 < counts.size() ? counts[l + 1] : int64_t(pool.size());
    const int64_t len = int64_t(l) + 1;
    if (begin < 0 || end < begin || end > int64_t(pool.size()) || (end - begin) % len != 0)
      throw CompileError(n.describe() + ": ngram_counts " + std::to_string(l) + " does not delimit whole " +
                         std::to_string(len) + "-grams in pool_int64s");
    const int64_t count = (end - begin) / len;
    if (len <= kMaxGram) {
      gram_count[size_t(l)] = count;
      gram_offset[size_t(l)] = begin;
      gram_id[size_t(l)] = id;
    } else if (len <= max_gram) {
      throw CompileError(n.describe() + ": n-grams longer than " + std::to_string(kMaxGram) + " are not supported");
    }
    id += count;
  }
  if (int64_t(indexes.size()) != id)
    throw CompileError(n.describe() + ": ngram_indexes has " + std::to_string(indexes.size()) + " entries for " +
                       std::to_string(id) + " n-grams in the pool");
  if (!weights.empty() && int64_t(weights.size()) != id)
    throw CompileError(n.describe() + ": weights has " + std::to_string(weights.size()) + " entries for " +
                       std::to_string(id) + " n-grams");
  int64_t out_size = 0;
  for (int64_t v : indexes) {
    if (v < 0) throw CompileError(n.describe() + ": negative entry in ngram_indexes");
    out_size = std::max(out_size, v + 1);
  }
  const int64_t rows = x->shape.size() == 2 ? x->shape[0] : 1;
  const int64_t cols = x->shape.back();
  const Shape expect = x->shape.size() == 2 ? Shape{rows, out_size} : Shape{out_size};
  if (y->shape != expect)
    throw CompileError(n.describe() + ": output shape " + shape_str(y->shape) + " is not " + shape_str(expect));

  KernelCall k;
  k.params_type = "kiln_tfidf_params_t";
  ParamsInit p;
  p.u("rows", rows).u("cols", cols).u("out_size", out_size).u("min_gram", min_gram).u("max_gram", max_gram);
  p.u("max_skip", max_skip);
  p.raw("mode", mode_id == 0 ? "KILN_TFIDF_TF" : mode_id == 1 ? "KILN_TFIDF_IDF" : "KILN_TFIDF_TFIDF");
  p.ints("gram_count", gram_count).ints("gram_offset", gram_offset).ints("gram_id", gram_id);
  p.raw("pool", compound("int64_t", pool.size(), [&](size_t i) { return int64_literal(pool[i]); }));
  p.raw("out_index", compound("uint32_t", indexes.size(), [&](size_t i) { return std::to_string(indexes[i]) + "u"; }));
  p.raw("weights", weights.empty() ? "NULL"
                                   : compound("float", weights.size(), [&](size_t i) { return c_float(weights[i]); }));
  k.params_init = p.str();
  k.call = std::string("kiln_tfidf_vectorizer_") + (x->dtype == DType::Int32 ? "i32" : "i64") + "(&$params, $in0, $out0)";
  return k;
}

}  // namespace

void register_text_lowerings() { register_lowering("TfIdfVectorizer", tfidf_vectorizer); }

}  // namespace kiln
