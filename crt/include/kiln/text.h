/* TfIdfVectorizer over integer token ids: counts the n-grams of each input row that
 * appear in a pool fixed at compile time (with skips between their tokens), and
 * writes per pool n-gram a term frequency, an IDF weight, or both multiplied. */
#ifndef KILN_TEXT_H
#define KILN_TEXT_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_TFIDF_MAX_GRAM 8

typedef enum { KILN_TFIDF_TF = 0, KILN_TFIDF_IDF = 1, KILN_TFIDF_TFIDF = 2 } kiln_tfidf_mode_t;

typedef struct {
  uint32_t rows, cols;         /* the input seen as [rows, cols] */
  uint32_t out_size;           /* columns of the output: max(ngram_indexes) + 1 */
  uint32_t min_gram, max_gram; /* n-gram lengths counted (1 <= min <= max <= KILN_TFIDF_MAX_GRAM) */
  uint32_t max_skip;           /* tokens skipped between the members of an n-gram: 0..max_skip */
  kiln_tfidf_mode_t mode;
  /* Per length n (index n - 1): how many n-grams the pool holds, where the first
   * starts in `pool`, and its n-gram id (the index into out_index / weights). */
  uint32_t gram_count[KILN_TFIDF_MAX_GRAM];
  uint32_t gram_offset[KILN_TFIDF_MAX_GRAM];
  uint32_t gram_id[KILN_TFIDF_MAX_GRAM];
  const int64_t* pool;       /* the n-grams' tokens, grouped by length */
  const uint32_t* out_index; /* per n-gram id: its output column */
  const float* weights;      /* per n-gram id, or NULL for 1 */
} kiln_tfidf_params_t;

kiln_status_t kiln_tfidf_vectorizer_i32(const kiln_tfidf_params_t* p, const int32_t* in, float* out);
kiln_status_t kiln_tfidf_vectorizer_i64(const kiln_tfidf_params_t* p, const int64_t* in, float* out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_TEXT_H */
