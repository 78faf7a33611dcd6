/* The fake TPM witness module's control block (fake_witness_tpm.c), shared by the module and
 * witness_gate_test.cpp so the two can never disagree on its layout. */
#ifndef KLMS_TEST_FAKE_WITNESS_TPM_H
#define KLMS_TEST_FAKE_WITNESS_TPM_H

#include <stddef.h>
#include <stdint.h>

#include "state/witness_module_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FAKE_COUNTERS 8

struct klms_fake_counter {
  int defined;
  uint32_t nv_index;
  uint64_t value;
  uint8_t name[KLMS_WITNESS_TPM_NAME_MAX];
  size_t name_len;
  uint32_t policy_len;
  uint8_t auth[64];
  size_t auth_len;
};

/* What the test sets and reads. */
struct klms_fake_tpm {
  int fail_with;              /* non-zero: every call returns this status */
  int64_t increments_left;    /* >= 0: an increment call stops after this many steps, then UNREACHABLE */
  uint64_t defines, reads, increment_calls, increments, undefines;
  uint32_t names_made;        /* makes every definition's name distinct */
  struct klms_fake_counter counters[FAKE_COUNTERS];
};

#ifdef __cplusplus
}
#endif

#endif
