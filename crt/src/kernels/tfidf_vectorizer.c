/* TfIdfVectorizer (ONNX, opset 9): see kiln/text.h.
 *
 * For every start position and every n-gram length n, the tokens at start,
 * start + (skip + 1), ..., start + (n - 1) * (skip + 1) form one n-gram, for each
 * skip in 0..max_skip (a unigram does not depend on the skip, so it is counted once).
 * A pool n-gram that matches adds 1 to its output column. The pool is searched
 * linearly: pools in models meant for microcontrollers are small, and this keeps
 * the kernel free of any index structure. */
#include "kiln/text.h"

#define KILN_TFIDF(SFX, T)                                                                               \
  kiln_status_t kiln_tfidf_vectorizer_##SFX(const kiln_tfidf_params_t* p, const T* in, float* out) {     \
    uint32_t r, c, start, n, skip, g, k;                                                                 \
    if (p == NULL || out == NULL || (p->rows * p->cols > 0u && in == NULL)) return KILN_ERR_NULL_POINTER; \
    if (p->min_gram < 1u || p->max_gram < p->min_gram || p->max_gram > KILN_TFIDF_MAX_GRAM)             \
      return KILN_ERR_BAD_ARGUMENT;                                                                      \
    for (r = 0; r < p->rows; ++r) {                                                                      \
      const T* row = in + (size_t)r * p->cols;                                                           \
      float* y = out + (size_t)r * p->out_size;                                                          \
      for (c = 0; c < p->out_size; ++c) y[c] = 0.0f;                                                     \
      for (start = 0; start < p->cols; ++start) {                                                        \
        for (n = p->min_gram; n <= p->max_gram; ++n) {                                                   \
          const uint32_t last_skip = n == 1u ? 0u : p->max_skip;                                         \
          for (skip = 0; skip <= last_skip; ++skip) {                                                    \
            const uint64_t span = (uint64_t)(n - 1u) * (skip + 1u);                                      \
            if ((uint64_t)start + span >= p->cols) break; /* longer skips reach further still */        \
            for (g = 0; g < p->gram_count[n - 1u]; ++g) {                                                \
              const int64_t* gram = p->pool + p->gram_offset[n - 1u] + (size_t)g * n;                    \
              for (k = 0; k < n; ++k)                                                                    \
                if ((int64_t)row[start + (size_t)k * (skip + 1u)] != gram[k]) break;                     \
              if (k == n) {                                                                              \
                y[p->out_index[p->gram_id[n - 1u] + g]] += 1.0f;                                         \
                break; /* pool n-grams are distinct */                                                   \
              }                                                                                          \
            }                                                                                            \
          }                                                                                              \
        }                                                                                                \
      }                                                                                                  \
      if (p->mode != KILN_TFIDF_TF) {                                                                    \
        /* Every id's column, weighted: IDF keeps only presence, TFIDF the count. */                    \
        for (n = 1; n <= KILN_TFIDF_MAX_GRAM; ++n)                                                       \
          for (g = 0; g < p->gram_count[n - 1u]; ++g) {                                                  \
            const uint32_t id = p->gram_id[n - 1u] + g;                                                  \
            const float w = p->weights != NULL ? p->weights[id] : 1.0f;                                  \
            float* v = &y[p->out_index[id]];                                                             \
            if (p->mode == KILN_TFIDF_IDF) *v = *v > 0.0f ? w : 0.0f;                                    \
            else *v *= w;                                                                                \
          }                                                                                              \
      }                                                                                                  \
    }                                                                                                    \
    return KILN_OK;                                                                                      \
  }

KILN_TFIDF(i32, int32_t)
KILN_TFIDF(i64, int64_t)
