/*
 * ONNX Cast / CastLike: kiln_cast_<from>_<to> for every pair of storable dtypes.
 * Every conversion is defined behaviour in C (see kiln/cast.h for the rules):
 * each source value is first read as a "wide" value of one of three kinds --
 * float (in float or double), signed (int64_t) or unsigned (uint64_t) -- and the
 * destination's store macro converts that kind.
 */
#include "elementwise_types.h"
#include "kiln/cast.h"

/* ---- sources: READ_<from>(v) gives the wide value, KIND_<from> its kind ---- */
#define CAST_READ_f32(v) (v)
#define CAST_READ_f64(v) (v)
#define CAST_READ_f16(v) kiln_f16_to_f32(v)
#define CAST_READ_bf16(v) kiln_bf16_to_f32(v)
#define CAST_READ_i8(v) ((int64_t)(v))
#define CAST_READ_i16(v) ((int64_t)(v))
#define CAST_READ_i32(v) ((int64_t)(v))
#define CAST_READ_i64(v) ((int64_t)(v))
#define CAST_READ_u8(v) ((uint64_t)(v))
#define CAST_READ_u16(v) ((uint64_t)(v))
#define CAST_READ_u32(v) ((uint64_t)(v))
#define CAST_READ_u64(v) ((uint64_t)(v))
#define CAST_READ_b(v) ((uint64_t)((v) != 0u ? 1u : 0u))
#define CAST_KIND_f32 FLOAT
#define CAST_KIND_f64 DOUBLE
#define CAST_KIND_f16 FLOAT
#define CAST_KIND_bf16 FLOAT
#define CAST_KIND_i8 INT
#define CAST_KIND_i16 INT
#define CAST_KIND_i32 INT
#define CAST_KIND_i64 INT
#define CAST_KIND_u8 INT
#define CAST_KIND_u16 INT
#define CAST_KIND_u32 INT
#define CAST_KIND_u64 INT
#define CAST_KIND_b INT

/* ---- destinations: STORE_<to>_<kind>(v) converts a wide value ----------- */
/* to float / double: integers convert exactly or round (defined in C); double to
 * float goes through kiln_f64_to_f32 so out-of-range values become +-inf. */
#define CAST_STORE_f32_FLOAT(v) (v)
#define CAST_STORE_f32_DOUBLE(v) kiln_f64_to_f32(v)
#define CAST_STORE_f32_INT(v) ((float)(v))
#define CAST_STORE_f64_FLOAT(v) ((double)(v))
#define CAST_STORE_f64_DOUBLE(v) (v)
#define CAST_STORE_f64_INT(v) ((double)(v))
#define CAST_STORE_f16_FLOAT(v) kiln_f32_to_f16(v)
#define CAST_STORE_f16_DOUBLE(v) kiln_f32_to_f16(kiln_f64_to_f32(v))
#define CAST_STORE_f16_INT(v) kiln_f32_to_f16((float)(v))
#define CAST_STORE_bf16_FLOAT(v) kiln_f32_to_bf16(v)
#define CAST_STORE_bf16_DOUBLE(v) kiln_f32_to_bf16(kiln_f64_to_f32(v))
#define CAST_STORE_bf16_INT(v) kiln_f32_to_bf16((float)(v))
#define CAST_STORE_bf16t_FLOAT(v) kiln_f32_to_bf16_trunc(v)
#define CAST_STORE_bf16t_DOUBLE(v) kiln_f32_to_bf16_trunc(kiln_f64_to_f32(v))
#define CAST_STORE_bf16t_INT(v) kiln_f32_to_bf16_trunc((float)(v))
/* to integers: floats truncate and saturate (NaN -> 0); integers wrap. */
#define CAST_INT_DEST(SFX, T)                                    \
  static inline T kiln_cast_float_to_##SFX(float v) { return KILN_SAT_##SFX(float, v); } \
  static inline T kiln_cast_double_to_##SFX(double v) { return KILN_SAT_##SFX(double, v); }
KILN_INT_TYPES(CAST_INT_DEST)
#define CAST_STORE_INTDEST_FLOAT(SFX, T, v) kiln_cast_float_to_##SFX(v)
#define CAST_STORE_INTDEST_DOUBLE(SFX, T, v) kiln_cast_double_to_##SFX(v)
#define CAST_STORE_INTDEST_INT(SFX, T, v) ((T)(v))
#define CAST_STORE_i8_FLOAT(v) CAST_STORE_INTDEST_FLOAT(i8, int8_t, v)
#define CAST_STORE_i8_DOUBLE(v) CAST_STORE_INTDEST_DOUBLE(i8, int8_t, v)
#define CAST_STORE_i8_INT(v) CAST_STORE_INTDEST_INT(i8, int8_t, v)
#define CAST_STORE_i16_FLOAT(v) CAST_STORE_INTDEST_FLOAT(i16, int16_t, v)
#define CAST_STORE_i16_DOUBLE(v) CAST_STORE_INTDEST_DOUBLE(i16, int16_t, v)
#define CAST_STORE_i16_INT(v) CAST_STORE_INTDEST_INT(i16, int16_t, v)
#define CAST_STORE_i32_FLOAT(v) CAST_STORE_INTDEST_FLOAT(i32, int32_t, v)
#define CAST_STORE_i32_DOUBLE(v) CAST_STORE_INTDEST_DOUBLE(i32, int32_t, v)
#define CAST_STORE_i32_INT(v) CAST_STORE_INTDEST_INT(i32, int32_t, v)
#define CAST_STORE_i64_FLOAT(v) CAST_STORE_INTDEST_FLOAT(i64, int64_t, v)
#define CAST_STORE_i64_DOUBLE(v) CAST_STORE_INTDEST_DOUBLE(i64, int64_t, v)
#define CAST_STORE_i64_INT(v) CAST_STORE_INTDEST_INT(i64, int64_t, v)
#define CAST_STORE_u8_FLOAT(v) CAST_STORE_INTDEST_FLOAT(u8, uint8_t, v)
#define CAST_STORE_u8_DOUBLE(v) CAST_STORE_INTDEST_DOUBLE(u8, uint8_t, v)
#define CAST_STORE_u8_INT(v) CAST_STORE_INTDEST_INT(u8, uint8_t, v)
#define CAST_STORE_u16_FLOAT(v) CAST_STORE_INTDEST_FLOAT(u16, uint16_t, v)
#define CAST_STORE_u16_DOUBLE(v) CAST_STORE_INTDEST_DOUBLE(u16, uint16_t, v)
#define CAST_STORE_u16_INT(v) CAST_STORE_INTDEST_INT(u16, uint16_t, v)
#define CAST_STORE_u32_FLOAT(v) CAST_STORE_INTDEST_FLOAT(u32, uint32_t, v)
#define CAST_STORE_u32_DOUBLE(v) CAST_STORE_INTDEST_DOUBLE(u32, uint32_t, v)
#define CAST_STORE_u32_INT(v) CAST_STORE_INTDEST_INT(u32, uint32_t, v)
#define CAST_STORE_u64_FLOAT(v) CAST_STORE_INTDEST_FLOAT(u64, uint64_t, v)
#define CAST_STORE_u64_DOUBLE(v) CAST_STORE_INTDEST_DOUBLE(u64, uint64_t, v)
#define CAST_STORE_u64_INT(v) CAST_STORE_INTDEST_INT(u64, uint64_t, v)
/* to bool: non-zero (NaN included) is true. */
#define CAST_STORE_b_FLOAT(v) ((uint8_t)((v) != 0 ? 1u : 0u))
#define CAST_STORE_b_DOUBLE(v) ((uint8_t)((v) != 0 ? 1u : 0u))
#define CAST_STORE_b_INT(v) ((uint8_t)((v) != 0 ? 1u : 0u))

/* ---- instantiation ------------------------------------------------------- */
#define CAST_PASTE3(a, b, c) a##b##_##c
#define CAST_STORE(TS, KIND) CAST_PASTE3(CAST_STORE_, TS, KIND)
#define CAST_STORE_FOR(TS, FS) CAST_STORE(TS, CAST_KIND_##FS)

#define CAST(FS, TF, TS, TT)                                                          \
  kiln_status_t kiln_cast_##FS##_##TS(const TF* in, TT* out, uint32_t n) {            \
    uint32_t i;                                                                       \
    if (in == NULL || out == NULL) return n == 0u ? KILN_OK : KILN_ERR_NULL_POINTER; \
    for (i = 0; i < n; ++i) out[i] = CAST_STORE_FOR(TS, FS)(CAST_READ_##FS(in[i])); \
    return KILN_OK;                                                                   \
  }
#define CAST_FROM(FS, TF)                                                                          \
  CAST(FS, TF, f32, float) CAST(FS, TF, f64, double) CAST(FS, TF, f16, uint16_t)                   \
  CAST(FS, TF, bf16, uint16_t) CAST(FS, TF, bf16t, uint16_t) CAST(FS, TF, i8, int8_t)              \
  CAST(FS, TF, i16, int16_t) CAST(FS, TF, i32, int32_t) CAST(FS, TF, i64, int64_t)                 \
  CAST(FS, TF, u8, uint8_t) CAST(FS, TF, u16, uint16_t) CAST(FS, TF, u32, uint32_t)                \
  CAST(FS, TF, u64, uint64_t) CAST(FS, TF, b, uint8_t)

KILN_CAST_TYPES(CAST_FROM)
