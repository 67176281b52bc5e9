/* KilnQLookup (kiln/nn_s8_elementwise.h): y[i] = table[x[i] + 128]. Four elements
 * per pass; each is read before it is written, so y may be x. */
#include "kiln/nn_s8_elementwise.h"

kiln_status_t kiln_lookup_s8(const kiln_lookup_s8_params_t* p, const int8_t* x, const int8_t* table, int8_t* y) {
  const int8_t* t;
  uint32_t i, n;
  if (p == NULL || x == NULL || table == NULL || y == NULL) return KILN_ERR_NULL_POINTER;
  t = table + 128;
  n = p->size;
  for (i = 0; i + 4u <= n; i += 4u) {
    const int8_t x0 = x[i], x1 = x[i + 1u], x2 = x[i + 2u], x3 = x[i + 3u];
    y[i] = t[x0];
    y[i + 1u] = t[x1];
    y[i + 2u] = t[x2];
    y[i + 3u] = t[x3];
  }
  for (; i < n; ++i) y[i] = t[x[i]];
  return KILN_OK;
}
