/* ONNX sequences whose positions are only known at run time (SequenceInsert /
 * SequenceErase / SequenceAt with a computed position). The compiler knows the
 * sequence's length and the common shape of its elements; the run-time part is a
 * small table in one caller-owned byte buffer (planned like any activation):
 *
 *   bytes [0, 4)                       uint32 count (elements in the sequence)
 *   bytes [4, 4 + 4 * capacity)        uint32 slot index of element 0..count-1
 *   bytes [KILN_SEQ_SLOTS_OFFSET(c),   capacity slots of elem_bytes bytes each:
 *          + capacity * elem_bytes)    the elements' storage
 *
 * Elements are copied into a slot (build, insert) and out of it (at, materialize);
 * build skips an element already in its slot (the compiler lets a producer whose
 * result only the table holds write it there directly);
 * insert and erase only move table entries, so they allow `out == in` (the
 * bufferizer runs them in place when the input sequence is dead afterwards).
 * Every access goes through memcpy: the buffer needs no alignment.
 *
 * Positions are one int32 or int64 (`pos_bytes` 4 or 8), negative counting from
 * the back as in ONNX; out of range gives KILN_ERR_BAD_ARGUMENT. A NULL position is
 * ONNX's default (insert at the back, erase the last element). */
#ifndef KILN_SEQUENCE_H
#define KILN_SEQUENCE_H

#include "kiln/kernel_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Byte offset of the slot storage, and the whole buffer's size. */
#define KILN_SEQ_SLOTS_OFFSET(capacity) ((4u + 4u * (uint32_t)(capacity) + 7u) & ~7u)
#define KILN_SEQ_BYTES(capacity, elem_bytes) \
  (KILN_SEQ_SLOTS_OFFSET(capacity) + (uint32_t)(capacity) * (uint32_t)(elem_bytes))

typedef struct {
  uint32_t capacity;   /* slots in the buffer */
  uint32_t elem_bytes; /* bytes of one element (all elements share one shape and dtype) */
  uint32_t slot;       /* insert: the free slot the new element is copied to */
} kiln_seq_params_t;

/* seq = the `count` elements `elems[0..count)`, element i in slot i. */
kiln_status_t kiln_seq_build(const kiln_seq_params_t* p, const void* const* elems, uint32_t count, void* seq);

/* out = in with `elem` inserted before position *pos (0..count, negative from the back). */
kiln_status_t kiln_seq_insert(const kiln_seq_params_t* p, const void* in, const void* elem, const void* pos,
                              uint32_t pos_bytes, void* out);

/* out = in without the element at *pos (0..count-1, negative from the back). */
kiln_status_t kiln_seq_erase(const kiln_seq_params_t* p, const void* in, const void* pos, uint32_t pos_bytes,
                             void* out);

/* out (elem_bytes) = a copy of the element at *pos (0..count-1, negative from the back). */
kiln_status_t kiln_seq_at(const kiln_seq_params_t* p, const void* seq, const void* pos, uint32_t pos_bytes,
                          void* out);

/* outs[i] (elem_bytes each) = a copy of element i, for the `count` elements the
 * compiler expects; KILN_ERR_BAD_ARGUMENT when the table holds another count. */
kiln_status_t kiln_seq_materialize(const kiln_seq_params_t* p, const void* seq, void* const* outs, uint32_t count);

/* Shared by the kernels above. */
uint32_t kiln_seq_load_u32(const void* seq, uint32_t byte_offset);
void kiln_seq_store_u32(void* seq, uint32_t byte_offset, uint32_t v);
/* Reads *pos (NULL: `dflt`), normalizes a negative value against `count` and checks
 * 0 <= q < count (+1 when `allow_end`). */
kiln_status_t kiln_seq_position(const void* pos, uint32_t pos_bytes, int64_t dflt, uint32_t count, int allow_end,
                                uint32_t* q);
/* The checked count of `seq` (<= capacity) and every slot index in range. */
kiln_status_t kiln_seq_check(const kiln_seq_params_t* p, const void* seq, uint32_t* count);

#ifdef __cplusplus
}
#endif

#endif /* KILN_SEQUENCE_H */
