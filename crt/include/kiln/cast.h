/*
 * Cast / CastLike: kiln_cast_<from>_<to>(in, out, n) for every pair of the
 * storable dtypes (suffixes as in kiln/elementwise.h, plus _bf16 for bfloat16
 * stored as its upper 16 bits in a uint16_t). The output may alias the input when
 * both have the same element size.
 *
 * Conversions (ONNX Cast; none of them is undefined behaviour in C):
 *  - float -> integer truncates toward zero and saturates at the integer's range;
 *    NaN gives 0. (ONNX leaves out-of-range results undefined; C would be UB.)
 *  - float -> narrower float rounds to nearest even; out of range gives +-inf.
 *    kiln_cast_<from>_bf16t truncates instead (the ONNX reference up to opset 18
 *    built bfloat16 by dropping the low 16 bits).
 *  - integer -> integer wraps modulo 2^bits (numpy's astype).
 *  - anything -> bool: x != 0 (NaN is true); bool -> anything: 0 or 1.
 */
#ifndef KILN_CAST_H
#define KILN_CAST_H

#include "kiln/elementwise.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_CAST_TYPES(X) KILN_NUMERIC_TYPES(X) X(bf16, uint16_t) X(b, uint8_t)

#define KILN_DECLARE_CAST(FS, TF, TS, TT) kiln_status_t kiln_cast_##FS##_##TS(const TF* in, TT* out, uint32_t n);
#define KILN_DECLARE_CASTS_FROM(FS, TF)                                                                   \
  KILN_DECLARE_CAST(FS, TF, f32, float) KILN_DECLARE_CAST(FS, TF, f64, double)                            \
  KILN_DECLARE_CAST(FS, TF, f16, uint16_t) KILN_DECLARE_CAST(FS, TF, bf16, uint16_t)                      \
  KILN_DECLARE_CAST(FS, TF, bf16t, uint16_t) KILN_DECLARE_CAST(FS, TF, i8, int8_t)                        \
  KILN_DECLARE_CAST(FS, TF, i16, int16_t) KILN_DECLARE_CAST(FS, TF, i32, int32_t)                         \
  KILN_DECLARE_CAST(FS, TF, i64, int64_t) KILN_DECLARE_CAST(FS, TF, u8, uint8_t)                          \
  KILN_DECLARE_CAST(FS, TF, u16, uint16_t) KILN_DECLARE_CAST(FS, TF, u32, uint32_t)                       \
  KILN_DECLARE_CAST(FS, TF, u64, uint64_t) KILN_DECLARE_CAST(FS, TF, b, uint8_t)
KILN_CAST_TYPES(KILN_DECLARE_CASTS_FROM)

#ifdef __cplusplus
}
#endif

#endif /* KILN_CAST_H */
