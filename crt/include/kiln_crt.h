/*
 * Kiln C runtime: status codes, dtypes and the model descriptor that generated
 * code exports. C99, no malloc, no stdio.
 *
 * Every generated module exports `const kiln_model_t kiln_<mod>_model`, which
 * describes its inputs, outputs and memory pools, and a generic entry point, so
 * that code which knows nothing about a particular model (a test runner, a
 * firmware shell) can drive any model through kiln_execute().
 */
#ifndef KILN_CRT_H
#define KILN_CRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_CRT_VERSION_MAJOR 0
#define KILN_CRT_VERSION_MINOR 1

/* Status codes returned by kiln_<mod>_run, kiln_execute and kernels. */
typedef int32_t kiln_status_t;
#define KILN_OK 0
#define KILN_ERR_NULL_POINTER (-1)  /* a required input/output/pool pointer is NULL */
#define KILN_ERR_MISALIGNED (-2)    /* a pool or tensor pointer is not aligned as required */
#define KILN_ERR_BAD_ARGUMENT (-3)  /* a kernel got parameters it cannot handle */
#define KILN_ERR_BAD_MODEL (-4)     /* a descriptor is inconsistent */

/* Element types, numbered as ONNX TensorProto.DataType. */
typedef enum {
  KILN_DTYPE_UNDEFINED = 0,
  KILN_DTYPE_FLOAT32 = 1,
  KILN_DTYPE_UINT8 = 2,
  KILN_DTYPE_INT8 = 3,
  KILN_DTYPE_UINT16 = 4,
  KILN_DTYPE_INT16 = 5,
  KILN_DTYPE_INT32 = 6,
  KILN_DTYPE_INT64 = 7,
  KILN_DTYPE_BOOL = 9,
  KILN_DTYPE_FLOAT16 = 10,
  KILN_DTYPE_FLOAT64 = 11,
  KILN_DTYPE_UINT32 = 12,
  KILN_DTYPE_UINT64 = 13,
  KILN_DTYPE_BFLOAT16 = 16
} kiln_dtype_t;

/* An input or output tensor of a model. */
typedef struct {
  const char* name;
  kiln_dtype_t dtype;
  uint32_t ndim;
  const int32_t* shape; /* ndim entries */
  uint32_t size_bytes;
  uint32_t alignment;   /* required alignment of the caller's buffer, in bytes */
} kiln_tensor_info_t;

/* A memory pool of a model. */
typedef struct {
  const char* name;
  uint32_t size_bytes;  /* bytes the model needs in this pool */
  uint32_t alignment;   /* required alignment of the pool's base pointer */
  uint8_t is_user_pool; /* 1: the caller passes the pointer; 0: internal (static) pool */
} kiln_pool_info_t;

/*
 * Generic entry point. Arrays are indexed like the descriptor's lists; the
 * workspace and parameter arrays hold one entry per *user* pool, in descriptor
 * order (internal pools need no pointer). `parameters` may be NULL, and any of
 * its entries may be NULL, to use the constant data compiled into the module.
 */
typedef kiln_status_t (*kiln_entry_fn_t)(const void* const* inputs, void* const* outputs,
                                         void* const* workspaces, const void* const* parameters);

typedef struct {
  const char* name; /* the module name */
  uint32_t num_inputs;
  const kiln_tensor_info_t* inputs;
  uint32_t num_outputs;
  const kiln_tensor_info_t* outputs;
  uint32_t num_workspace_pools;
  const kiln_pool_info_t* workspace_pools;
  uint32_t num_parameter_pools;
  const kiln_pool_info_t* parameter_pools;
  kiln_entry_fn_t entry;
} kiln_model_t;

/* Runs `model`. Returns KILN_OK or a negative status code; never crashes on a NULL
 * or misaligned pointer. */
kiln_status_t kiln_execute(const kiln_model_t* model, const void* const* inputs, void* const* outputs,
                           void* const* workspaces, const void* const* parameters);

/* Number of user workspace / parameter pools (the length of the arrays above). */
uint32_t kiln_model_num_user_workspaces(const kiln_model_t* model);
uint32_t kiln_model_num_user_parameters(const kiln_model_t* model);

/* Returns a short English name of a status code ("null pointer", ...). */
const char* kiln_status_str(kiln_status_t status);

/* Copies `n` bytes (regions must not overlap). Used where the generated code
 * needs a copy: a graph output that is also an input or a constant. */
kiln_status_t kiln_copy_bytes(void* dst, const void* src, uint32_t n);

/* Fills `n` bytes with the poison pattern 0xA5 (see KILN_POISON_DEAD in the docs:
 * generated code calls it on buffers whose live range ended, in debug builds). */
void kiln_poison_bytes(void* dst, uint32_t n);

/* Alignment of static arrays in generated code. */
#if defined(__GNUC__) || defined(__clang__)
#define KILN_ALIGNED(n) __attribute__((aligned(n)))
#define KILN_SECTION(s) __attribute__((section(s)))
#else
#define KILN_ALIGNED(n)
#define KILN_SECTION(s)
#endif

/* 1 if `p` is non-NULL and aligned to `alignment` bytes (a power of two). */
static inline int kiln_ptr_ok(const void* p, uint32_t alignment) {
  return p != NULL && (((uintptr_t)p) & (uintptr_t)(alignment - 1u)) == 0u;
}

/* KILN_OK, KILN_ERR_NULL_POINTER or KILN_ERR_MISALIGNED for a caller's pointer. */
static inline kiln_status_t kiln_check_ptr(const void* p, uint32_t alignment) {
  if (p == NULL) return KILN_ERR_NULL_POINTER;
  return kiln_ptr_ok(p, alignment) ? KILN_OK : KILN_ERR_MISALIGNED;
}

#ifdef __cplusplus
}
#endif

#endif /* KILN_CRT_H */
