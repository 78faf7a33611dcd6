/* The C interface between the state store and the separately built witness modules (docs/state.md
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

#define KLMS_WITNESS_TPM_ABI_VERSION 2u
#define KLMS_WITNESS_TPM_ENTRY "klms_witness_tpm_v2"
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
  KLMS_WITNESS_DEADLINE = 7,      /* the call did not finish within its deadline: refused */
  /* etcd only (docs/fleet.md "What is refused"): */
  KLMS_WITNESS_BACKWARDS = 8,     /* the key's counter or this host's record is below what was handed out */
  KLMS_WITNESS_RECREATED = 9,     /* the counter or host record was deleted and created again */
  KLMS_WITNESS_OTHER_CLUSTER = 10, /* an answer from a cluster of another id */
  KLMS_WITNESS_OLDER_REVISION = 11, /* an answer older than one this host has seen: a restored cluster */
  KLMS_WITNESS_DENIED = 12,       /* the cluster's access control refused the user */
  KLMS_WITNESS_EXHAUSTED = 13,    /* the key's counter has handed out every index */
  KLMS_WITNESS_CONTENDED = 14,    /* other writers kept changing the records until the deadline */
  KLMS_WITNESS_UNACKNOWLEDGED = 15 /* the grant would reach the key's last indices, which wait for
                                      the state file's acknowledgement (docs/state.md §5) */
};

/* Longest TPM name of an NV index: nameAlg (2) + a digest (at most 64). */
#define KLMS_WITNESS_TPM_NAME_MAX 66
/* A counter's authPolicy: 32 random bytes per binding (docs/state.md "One binding, one name"). */
#define KLMS_WITNESS_TPM_POLICY_BYTES 32

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
  uint32_t policy_len;    /* KLMS_WITNESS_TPM_POLICY_BYTES, or 0: bound before per-binding policies */
  uint32_t reset_count;   /* the TPM's TPMS_CLOCK_INFO when the connection was opened */
  uint32_t restart_count;
};

struct klms_witness_tpm_api {
  uint32_t abi_version; /* KLMS_WITNESS_TPM_ABI_VERSION */
  /* Defines a new orderly NV counter at the first free handle of [first, last] with write (and
   * read) authorization `auth`, no dictionary-attack protection, owner read, and the authPolicy
   * `policy` (KLMS_WITNESS_TPM_POLICY_BYTES random bytes: never satisfiable, it only makes the
   * counter's name one binding's); increments it once and reads it back. */
  int (*define_counter)(const struct klms_tpm_target *target, const uint8_t *auth, size_t auth_len,
                        const uint8_t *policy, uint32_t first, uint32_t last, struct klms_tpm_counter *out,
                        char *message, size_t message_len);
  /* Reads the counter (with `auth`, or with owner authorization when auth is NULL) and its name. */
  int (*read_counter)(const struct klms_tpm_target *target, uint32_t nv_index, const uint8_t *auth,
                      size_t auth_len, struct klms_tpm_counter *out, char *message, size_t message_len);
  /* Increments `times` times (each TPM2_NV_Increment steps by one) and reads the value back. */
  int (*increment_counter)(const struct klms_tpm_target *target, uint32_t nv_index, const uint8_t *auth,
                           size_t auth_len, uint64_t times, struct klms_tpm_counter *out, char *message,
                           size_t message_len);
  /* Undefines the counter (owner authorization), only when its name is still `name` (as the
   * caller's own read returned it): KLMS_WITNESS_NOT_OURS, and nothing undefined, otherwise. */
  int (*undefine_counter)(const struct klms_tpm_target *target, uint32_t nv_index, const uint8_t *name,
                          size_t name_len, char *message, size_t message_len);
};

typedef const struct klms_witness_tpm_api *(*klms_witness_tpm_entry_fn)(void);

/* ---- The etcd fleet witness (docs/fleet.md): klms-witness-etcd.so ---- */
#define KLMS_WITNESS_ETCD_ABI_VERSION 2u
#define KLMS_WITNESS_ETCD_ENTRY "klms_witness_etcd_v1"
#define KLMS_WITNESS_ETCD_MODULE "klms-witness-etcd.so"

/* Where the cluster is and who asks. Strings are NUL-terminated; NULL or "" means unset. */
struct klms_etcd_target {
  const char *endpoints;   /* comma-separated URLs, http:// or https:// */
  const char *prefix;      /* root of klms's keys in the cluster, e.g. "/klms" */
  const char *cacert;      /* PEM file: the CA that signed the members' certificates */
  const char *cert;        /* PEM file: this client's certificate (mutual TLS) */
  const char *key;         /* PEM file: its private key */
  const char *user;        /* etcd user (RBAC); NULL: no authentication */
  const char *password;    /* its password */
  size_t password_len;
  unsigned timeout_ms;     /* the whole call refuses (KLMS_WITNESS_DEADLINE) past it */
};

/* What a host's state file records of its place in the fleet (state/file_format.h). */
struct klms_etcd_binding {
  uint64_t cluster_id;       /* the cluster's id when the host joined */
  uint64_t counter_created;  /* create revision of the key's counter */
  uint64_t host_created;     /* create revision of this host's record */
  uint64_t revision_seen;    /* the highest cluster revision this host has seen */
  uint64_t block_end;        /* end (exclusive) of the host's current block */
  uint64_t term_seen;        /* the highest raft term this host has seen (a restore starts a new log) */
  uint32_t host_id;          /* the host record's name */
};

/* What the cluster says of a key and a host (display, checks). */
struct klms_etcd_reading {
  uint64_t counter;          /* the key's next unallocated index */
  uint64_t host_next;        /* the host's next index */
  uint64_t host_block_end;
  uint64_t revision;         /* the cluster's revision in the answer */
  uint64_t hosts;            /* host records of the key */
};

struct klms_witness_etcd_api {
  uint32_t abi_version; /* KLMS_WITNESS_ETCD_ABI_VERSION */
  /* A new key: creates its counter (at `first_index`), its description (maximum, levels digest)
   * and the first host's record in one transaction, refused when the counter exists. `key_id` is
   * the key id in lowercase hex. */
  int (*create_key)(const struct klms_etcd_target *target, const char *key_id, uint64_t max_signatures,
                    const uint8_t levels_digest[32], uint64_t first_index, struct klms_etcd_binding *out,
                    char *message, size_t message_len);
  /* A new host of an existing key: a record of its own, no block; returns the key's description. */
  int (*join)(const struct klms_etcd_target *target, const char *key_id, struct klms_etcd_binding *out,
              uint64_t *max_signatures, uint8_t levels_digest[32], char *message, size_t message_len);
  /* Reserves up to `want` indices for the host at `local_next` (its state file's next index): from
   * its block, or from a new block of `block` indices taken from the key's counter (never past
   * `max_signatures`). Durable by the cluster's quorum before it returns. [*start, *start + *count)
   * are this host's alone; `out` is what the state file must record before any is used. A grant
   * that would reach past `gate` (the first of the key's last indices, which wait for the state
   * file's acknowledgement; max_signatures when none waits) is refused with
   * KLMS_WITNESS_UNACKNOWLEDGED before anything is committed: the indices granted are tested, not
   * the state file's next index, which a host whose block comes from the counter is far below. */
  int (*reserve)(const struct klms_etcd_target *target, const char *key_id, uint64_t max_signatures,
                 const struct klms_etcd_binding *in, uint64_t local_next, uint64_t want, uint64_t block,
                 uint64_t gate, uint64_t *start, uint64_t *count, struct klms_etcd_binding *out,
                 char *message, size_t message_len);
  /* Reads and checks without writing: the reading is filled as far as the answer went. */
  int (*read)(const struct klms_etcd_target *target, const char *key_id, const struct klms_etcd_binding *in,
              uint64_t local_next, struct klms_etcd_reading *out, char *message, size_t message_len);
  /* Deletes the host's record and keeps its block end as the key's tombstone for the host (the
   * host leaves; its block's rest is given up; the key's counter is held against the tombstone). */
  int (*leave)(const struct klms_etcd_target *target, const char *key_id, const struct klms_etcd_binding *in,
               char *message, size_t message_len);
  /* After a cluster restore (docs/fleet.md "Disaster restore"): moves the key's counter to at least
   * max(its value, in->block_end, counter_at_least), this host's record to at least the state
   * file's, and accepts the cluster's revision as seen. */
  int (*resync)(const struct klms_etcd_target *target, const char *key_id, uint64_t max_signatures,
                const struct klms_etcd_binding *in, uint64_t local_next, uint64_t counter_at_least,
                struct klms_etcd_binding *out, char *message, size_t message_len);
  /* Deletes the key's counter and every host record (retire). */
  int (*delete_key)(const struct klms_etcd_target *target, const char *key_id,
                    const struct klms_etcd_binding *in, char *message, size_t message_len);
};

typedef const struct klms_witness_etcd_api *(*klms_witness_etcd_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
