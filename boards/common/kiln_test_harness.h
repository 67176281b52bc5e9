/*
 * The interface between `kiln verify`'s generated test data (kiln_test_data.c)
 * and the generic runner (runner.c). One firmware image can carry several test
 * cases, possibly of different models, so that a batch of tests costs one QEMU start.
 */
#ifndef KILN_TEST_HARNESS_H
#define KILN_TEST_HARNESS_H

#include "kiln_crt.h"

typedef struct {
  const char* name;                 /* printed in the runner's "CASE" line */
  const kiln_model_t* model;
  const void* const* inputs;        /* model->num_inputs pointers */
  void* const* outputs;             /* model->num_outputs pointers to caller buffers */
  void* const* workspaces;          /* one per user workspace pool (may be NULL if none) */
  const void* const* parameters;    /* may be NULL: use compiled-in constants */
} kiln_test_case_t;

extern const kiln_test_case_t kiln_test_cases[];
extern const uint32_t kiln_test_num_cases;

#endif
