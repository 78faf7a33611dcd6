/* A fake TPM witness module for witness_gate_test.cpp: the module ABI of state/witness_module_abi.h
 * over counters in memory, so the witness gate's whole matrix runs in milliseconds without swtpm.
 * Built as klms-witness-tpm.so in a directory of its own; the test names that directory in
 * KLMS_WITNESS_DIR and reaches the counters through klms_fake_tpm(). The real module and swtpm
 * are tested by the recipes (test/recipes/witness_*.t). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "state/witness_module_abi.h"
#include "test/unit/state/witness_gate/fake_witness_tpm.h"

static struct klms_fake_tpm fake = {.increments_left = -1};

__attribute__((visibility("default"))) struct klms_fake_tpm *klms_fake_tpm(void) { return &fake; }

static void say(char *message, size_t len, const char *text) {
  if (message != NULL && len > 0) snprintf(message, len, "fake TPM: %s", text);
}

static struct klms_fake_counter *find(uint32_t nv_index) {
  for (int i = 0; i < FAKE_COUNTERS; ++i) {
    if (fake.counters[i].defined && fake.counters[i].nv_index == nv_index) return &fake.counters[i];
  }
  return NULL;
}

static void report(const struct klms_fake_counter *c, struct klms_tpm_counter *out) {
  out->nv_index = c->nv_index;
  out->value = c->value;
  memcpy(out->name, c->name, c->name_len);
  out->name_len = c->name_len;
  out->policy_len = c->policy_len;
  out->reset_count = 0;
  out->restart_count = 0;
}

static int check_auth(const struct klms_fake_counter *c, const uint8_t *auth, size_t auth_len) {
  return auth_len == c->auth_len && memcmp(auth, c->auth, auth_len) == 0;
}

static int define_counter(const struct klms_tpm_target *target, const uint8_t *auth, size_t auth_len,
                          const uint8_t *policy, uint32_t first, uint32_t last, struct klms_tpm_counter *out,
                          char *message, size_t message_len) {
  (void)target;
  ++fake.defines;
  if (fake.fail_with != 0) { say(message, message_len, "refused"); return fake.fail_with; }
  if (auth_len > sizeof fake.counters[0].auth) return KLMS_WITNESS_TPM_ERROR;
  for (uint32_t index = first; index <= last && index - first < FAKE_COUNTERS; ++index) {
    if (find(index) != NULL) continue;
    for (int i = 0; i < FAKE_COUNTERS; ++i) {
      struct klms_fake_counter *c = &fake.counters[i];
      if (c->defined) continue;
      memset(c, 0, sizeof *c);
      c->defined = 1;
      c->nv_index = index;
      c->name_len = 34;  /* nameAlg SHA-256 + a digest */
      c->name[0] = 0x00;
      c->name[1] = 0x0b;
      ++fake.names_made;
      /* An orderly counter starts at the highest value any counter of the TPM had: not at 0. Defining
       * increments it once (state/witness_module_abi.h). */
      c->value = UINT64_C(0x100000) * fake.names_made + 1;
      memcpy(c->name + 2, &index, sizeof index);
      memcpy(c->name + 6, &fake.names_made, sizeof fake.names_made);
      /* The name covers the per-binding authPolicy, as a real TPM's does. */
      if (policy != NULL) {
        for (size_t b = 0; b < KLMS_WITNESS_TPM_POLICY_BYTES && 10 + b < c->name_len; ++b) c->name[10 + b] ^= policy[b];
        c->policy_len = KLMS_WITNESS_TPM_POLICY_BYTES;
      }
      memcpy(c->auth, auth, auth_len);
      c->auth_len = auth_len;
      report(c, out);
      return KLMS_WITNESS_OK;
    }
  }
  say(message, message_len, "no free NV index");
  return KLMS_WITNESS_NO_SPACE;
}

static int read_counter(const struct klms_tpm_target *target, uint32_t nv_index, const uint8_t *auth, size_t auth_len,
                        struct klms_tpm_counter *out, char *message, size_t message_len) {
  (void)target;
  ++fake.reads;
  if (fake.fail_with != 0) { say(message, message_len, "refused"); return fake.fail_with; }
  const struct klms_fake_counter *c = find(nv_index);
  if (c == NULL) { say(message, message_len, "no such NV index"); return KLMS_WITNESS_MISSING; }
  if (auth != NULL && !check_auth(c, auth, auth_len)) { say(message, message_len, "bad auth"); return KLMS_WITNESS_AUTH_FAILED; }
  report(c, out);
  return KLMS_WITNESS_OK;
}

static int increment_counter(const struct klms_tpm_target *target, uint32_t nv_index, const uint8_t *auth,
                             size_t auth_len, uint64_t times, struct klms_tpm_counter *out, char *message,
                             size_t message_len) {
  (void)target;
  ++fake.increment_calls;
  if (fake.fail_with != 0) { say(message, message_len, "refused"); return fake.fail_with; }
  struct klms_fake_counter *c = find(nv_index);
  if (c == NULL) { say(message, message_len, "no such NV index"); return KLMS_WITNESS_MISSING; }
  if (!check_auth(c, auth, auth_len)) { say(message, message_len, "bad auth"); return KLMS_WITNESS_AUTH_FAILED; }
  for (uint64_t i = 0; i < times; ++i) {
    if (fake.increments_left == 0) { say(message, message_len, "gone mid-way"); return KLMS_WITNESS_UNREACHABLE; }
    if (fake.increments_left > 0) --fake.increments_left;
    ++c->value;
    ++fake.increments;
  }
  report(c, out);
  return KLMS_WITNESS_OK;
}

static int undefine_counter(const struct klms_tpm_target *target, uint32_t nv_index, const uint8_t *name,
                            size_t name_len, char *message, size_t message_len) {
  (void)target;
  ++fake.undefines;
  if (fake.fail_with != 0) { say(message, message_len, "refused"); return fake.fail_with; }
  struct klms_fake_counter *c = find(nv_index);
  if (c == NULL) return KLMS_WITNESS_MISSING;
  if (name_len != c->name_len || memcmp(name, c->name, name_len) != 0) {
    say(message, message_len, "another binding's counter");
    return KLMS_WITNESS_NOT_OURS;
  }
  c->defined = 0;
  return KLMS_WITNESS_OK;
}

static const struct klms_witness_tpm_api api = {KLMS_WITNESS_TPM_ABI_VERSION, define_counter, read_counter,
                                                increment_counter, undefine_counter};

__attribute__((visibility("default"))) const struct klms_witness_tpm_api *klms_witness_tpm_v2(void) { return &api; }
