/* The C interface between the state store and a separately built witness module (docs/state.md
 * "The witness"). A module is a shared object loaded with dlopen only when a state file names
 * its witness, so that a process signing without one loads nothing of it (and the package does
 * not depend on its libraries). Plain C: no exception or C++ type crosses it. */
#ifndef KLMS_STATE_WITNESS_MODULE_ABI_H
#define KLMS_STATE_WITNESS_MODULE_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KLMS_WITNESS_TPM_ABI_VERSION 1u
#define KLMS_WITNESS_TPM_ENTRY "klms_witness_tpm_v1"
#define KLMS_WITNESS_TPM_MODULE "klms-witness-tpm.so"

/* Results of every call. */
enum klms_witness_status {
  KLMS_WITNESS_OK = 0,
  KLMS_WITNESS_UNREACHABLE = 1,   /* no TPM at the TCTI, or it answered nothing in time */
  KLMS_WITNESS_MISSING = 2,       /* no NV index at that handle */
  KLMS_WITNESS_AUTH_FAILED = 3,   /* wrong authorization value */
  KLMS_WITNESS_NO_SPACE = 4,      /* no free NV index in the range, or no NV space left */
  KLMS_WITNESS_NOT_OURS = 5,      /* an NV index that is not a counter of the expected shape */
  KLMS_WITNESS_TPM_ERROR = 6,     /* any other TPM or TSS error (see the message) */
  KLMS_WITNESS_DEADLINE = 7       /* the call did not finish within its deadline: refused */
};

/* Longest TPM name of an NV index: nameAlg (2) + a digest (at most 64). */
#define KLMS_WITNESS_TPM_NAME_MAX 66

/* One connection's parameters. `tcti` is a tpm2-tss TCTI configuration string
 * ("device:/dev/tpmrm0", "swtpm:path=/run/swtpm/sock", "swtpm:host=127.0.0.1,port=2321"). */
struct klms_tpm_target {
  const char *tcti;
  unsigned timeout_ms;           /* every call refuses (KLMS_WITNESS_DEADLINE) past it */
  const uint8_t *owner_auth;     /* owner hierarchy authorization; may be empty */
  size_t owner_auth_len;
};

/* What a counter is now. */
struct klms_tpm_counter {
  uint32_t nv_index;
  uint64_t value;
  uint8_t name[KLMS_WITNESS_TPM_NAME_MAX];
  size_t name_len;
};

struct klms_witness_tpm_api {
  uint32_t abi_version; /* KLMS_WITNESS_TPM_ABI_VERSION */
  /* Defines a new orderly NV counter at the first free handle of [first, last] with write (and
   * read) authorization `auth`, no dictionary-attack protection, owner read; increments it once
   * and reads it back. */
  int (*define_counter)(const struct klms_tpm_target *target, const uint8_t *auth, size_t auth_len,
                        uint32_t first, uint32_t last, struct klms_tpm_counter *out, char *message,
                        size_t message_len);
  /* Reads the counter (with `auth`, or with owner authorization when auth is NULL) and its name. */
  int (*read_counter)(const struct klms_tpm_target *target, uint32_t nv_index, const uint8_t *auth,
                      size_t auth_len, struct klms_tpm_counter *out, char *message, size_t message_len);
  /* Increments `times` times (each TPM2_NV_Increment steps by one) and reads the value back. */
  int (*increment_counter)(const struct klms_tpm_target *target, uint32_t nv_index, const uint8_t *auth,
                           size_t auth_len, uint64_t times, struct klms_tpm_counter *out, char *message,
                           size_t message_len);
  /* Undefines the counter (owner authorization). */
  int (*undefine_counter)(const struct klms_tpm_target *target, uint32_t nv_index, char *message,
                          size_t message_len);
};

typedef const struct klms_witness_tpm_api *(*klms_witness_tpm_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
