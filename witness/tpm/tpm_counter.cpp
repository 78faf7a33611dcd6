// The TPM 2.0 witness module (docs/state.md "The witness"): an orderly NV counter per state file,
// through tpm2-tss's System API (SAPI) and TCTI loader. SAPI, not ESAPI: ESAPI links the system's
// libcrypto, which must not enter a process that runs another OpenSSL; SAPI and the TCTIs link only
// libc and libtss2-mu. Authorization is a password session (TPM_RS_PW).
//
// One connection per process and TCTI (docs/performance.md "The TPM witness"): a signature's reads
// and increments share it. A call takes it for itself (an atomic exchange, so no lock a fork could
// inherit held), gives it back when the TPM answered, and drops it when the TCTI failed or the
// deadline passed; a forked child never uses its parent's (it would speak on the parent's socket).
//
// Every call runs on a thread of its own and the caller waits for it at most target->timeout_ms:
// a TPM (or a swtpm) that accepts the connection and then answers nothing must not hang a signer.
// Past the deadline the call is refused (KLMS_WITNESS_DEADLINE); the abandoned thread finishes or
// stays blocked on its own resources. A deadline only ever refuses (docs/state.md §14): no time
// value reaches a decision to sign or how far to skip.
#include <tss2/tss2_mu.h>
#include <tss2/tss2_sys.h>
#include <tss2/tss2_tctildr.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "state/witness_module_abi.h"

namespace {

constexpr TPMA_NV kCounterAttributes =
    (TPM2_NT_COUNTER << TPMA_NV_TPM2_NT_SHIFT) | TPMA_NV_AUTHWRITE | TPMA_NV_AUTHREAD | TPMA_NV_OWNERREAD |
    TPMA_NV_NO_DA | TPMA_NV_ORDERLY;

struct Outcome {
  int status = KLMS_WITNESS_OK;
  std::string message;
  klms_tpm_counter counter{};
};

Outcome fail(int status, std::string message) {
  Outcome o;
  o.status = status;
  o.message = std::move(message);
  return o;
}

std::string rc_text(TSS2_RC rc) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(rc));
  return buf;
}

// The TPM response code without its session/handle/parameter number.
TSS2_RC base_rc(TSS2_RC rc) {
  if ((rc & 0xFFFF0000u) != 0) return rc;   // a TSS layer's code
  if (rc & TPM2_RC_FMT1) return rc & (TPM2_RC_FMT1 | 0x3Fu);
  return rc;
}

int status_of(TSS2_RC rc) {
  const TSS2_RC b = base_rc(rc);
  if (b == TPM2_RC_HANDLE) return KLMS_WITNESS_MISSING;
  if (b == TPM2_RC_AUTH_FAIL || b == TPM2_RC_BAD_AUTH) return KLMS_WITNESS_AUTH_FAILED;
  if (b == TPM2_RC_NV_SPACE) return KLMS_WITNESS_NO_SPACE;
  if ((rc & 0xFFFF0000u) == TSS2_TCTI_RC_LAYER || (rc & 0xFFFF0000u) == TSS2_SYS_RC_LAYER) {
    return KLMS_WITNESS_UNREACHABLE;
  }
  return KLMS_WITNESS_TPM_ERROR;
}

// One connection to a TPM: the TCTI and the SAPI context over it, freed together.
class Connection {
 public:
  ~Connection() {
    if (sys_ != nullptr) Tss2_Sys_Finalize(sys_);
    if (tcti_ != nullptr) Tss2_TctiLdr_Finalize(&tcti_);
  }
  TSS2_RC open(const char* conf) {
    TSS2_RC rc = Tss2_TctiLdr_Initialize(conf, &tcti_);
    if (rc != TSS2_RC_SUCCESS) return rc;
    const std::size_t size = Tss2_Sys_GetContextSize(0);
    storage_.assign(size, 0);
    sys_ = reinterpret_cast<TSS2_SYS_CONTEXT*>(storage_.data());
    TSS2_ABI_VERSION abi = TSS2_ABI_VERSION_CURRENT;
    rc = Tss2_Sys_Initialize(sys_, size, tcti_, &abi);
    if (rc != TSS2_RC_SUCCESS) sys_ = nullptr;
    return rc;
  }
  TSS2_SYS_CONTEXT* sys() const { return sys_; }
  pid_t pid = ::getpid();
  std::string tcti;       // the configuration it was opened with
  std::uint32_t reset_count = 0;    // the TPM's TPMS_CLOCK_INFO, read once per connection
  std::uint32_t restart_count = 0;
  // A connection inherited by a forked child: never finalized there, as that may speak on the
  // parent's socket (deliberately leaked; the child is a rare signer).
  void abandon() { sys_ = nullptr; tcti_ = nullptr; }

 private:
  TSS2_TCTI_CONTEXT* tcti_ = nullptr;
  std::vector<std::uint64_t> storage_;  // aligned storage for the SAPI context
  TSS2_SYS_CONTEXT* sys_ = nullptr;
};

// A password session carrying `auth` (wiped when the command is sent).
struct PasswordAuth {
  TSS2L_SYS_AUTH_COMMAND command{};
  TSS2L_SYS_AUTH_RESPONSE response{};
  PasswordAuth(const std::uint8_t* auth, std::size_t len) {
    command.count = 1;
    command.auths[0].sessionHandle = TPM2_RH_PW;
    const std::size_t n = std::min(len, sizeof command.auths[0].hmac.buffer);
    if (n != 0) std::memcpy(command.auths[0].hmac.buffer, auth, n);
    command.auths[0].hmac.size = static_cast<UINT16>(n);
  }
  ~PasswordAuth() {
    volatile std::uint8_t* p = reinterpret_cast<volatile std::uint8_t*>(&command);
    for (std::size_t i = 0; i < sizeof command; ++i) p[i] = 0;
  }
  PasswordAuth(const PasswordAuth&) = delete;
  PasswordAuth& operator=(const PasswordAuth&) = delete;
};

// Sends the prepared command and waits for its answer (the caller's deadline bounds the wait).
TSS2_RC run(TSS2_SYS_CONTEXT* sys, const PasswordAuth* auth) {
  if (auth != nullptr) {
    if (TSS2_RC rc = Tss2_Sys_SetCmdAuths(sys, &auth->command); rc != TSS2_RC_SUCCESS) return rc;
  }
  if (TSS2_RC rc = Tss2_Sys_ExecuteAsync(sys); rc != TSS2_RC_SUCCESS) return rc;
  return Tss2_Sys_ExecuteFinish(sys, TSS2_TCTI_TIMEOUT_BLOCK);
}

Outcome read_public(TSS2_SYS_CONTEXT* sys, std::uint32_t index, TPM2B_NV_PUBLIC& pub, klms_tpm_counter& out) {
  TSS2_RC rc = Tss2_Sys_NV_ReadPublic_Prepare(sys, index);
  if (rc == TSS2_RC_SUCCESS) rc = run(sys, nullptr);
  TPM2B_NAME name{};
  pub = TPM2B_NV_PUBLIC{};
  if (rc == TSS2_RC_SUCCESS) rc = Tss2_Sys_NV_ReadPublic_Complete(sys, &pub, &name);
  if (rc != TSS2_RC_SUCCESS) return fail(status_of(rc), "TPM2_NV_ReadPublic failed: " + rc_text(rc));
  const TPMA_NV attrs = pub.nvPublic.attributes & ~TPMA_NV_WRITTEN;
  // authPolicy: 32 random bytes per binding, or none for a counter bound before them.
  const UINT16 policy = pub.nvPublic.authPolicy.size;
  if (attrs != kCounterAttributes || pub.nvPublic.dataSize != 8 || pub.nvPublic.nameAlg != TPM2_ALG_SHA256 ||
      (policy != 0 && policy != KLMS_WITNESS_TPM_POLICY_BYTES)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "NV index 0x%08x is not a klms counter (attributes 0x%08x)", index,
                  static_cast<unsigned>(pub.nvPublic.attributes));
    return fail(KLMS_WITNESS_NOT_OURS, buf);
  }
  out.nv_index = index;
  out.policy_len = policy;
  out.name_len = std::min<std::size_t>(name.size, sizeof out.name);
  std::memcpy(out.name, name.name, out.name_len);
  return Outcome{};
}

// The counter's value and name (read with `auth`, or with owner authorization when it is null).
Outcome read_value(TSS2_SYS_CONTEXT* sys, std::uint32_t index, const std::uint8_t* auth, std::size_t auth_len,
                   const klms_tpm_target& target) {
  Outcome result;
  klms_tpm_counter& out = result.counter;
  TPM2B_NV_PUBLIC pub;
  if (Outcome o = read_public(sys, index, pub, out); o.status != KLMS_WITNESS_OK) return o;
  if ((pub.nvPublic.attributes & TPMA_NV_WRITTEN) == 0) {
    return fail(KLMS_WITNESS_NOT_OURS, "the counter was never incremented");
  }
  const bool as_owner = auth == nullptr;
  PasswordAuth session(as_owner ? target.owner_auth : auth, as_owner ? target.owner_auth_len : auth_len);
  TSS2_RC rc = Tss2_Sys_NV_Read_Prepare(sys, as_owner ? TPM2_RH_OWNER : index, index, 8, 0);
  if (rc == TSS2_RC_SUCCESS) rc = run(sys, &session);
  TPM2B_MAX_NV_BUFFER data{};
  if (rc == TSS2_RC_SUCCESS) rc = Tss2_Sys_NV_Read_Complete(sys, &data);
  if (rc != TSS2_RC_SUCCESS) return fail(status_of(rc), "TPM2_NV_Read failed: " + rc_text(rc));
  if (data.size != 8) return fail(KLMS_WITNESS_NOT_OURS, "the counter did not read as 8 bytes");
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | data.buffer[i];  // TPM integers are big-endian
  out.value = v;
  return result;
}

Outcome increment(TSS2_SYS_CONTEXT* sys, std::uint32_t index, const std::uint8_t* auth, std::size_t auth_len,
                  std::uint64_t times) {
  PasswordAuth session(auth, auth_len);
  for (std::uint64_t i = 0; i < times; ++i) {
    TSS2_RC rc = Tss2_Sys_NV_Increment_Prepare(sys, index, index);
    if (rc == TSS2_RC_SUCCESS) rc = run(sys, &session);
    if (rc == TSS2_RC_SUCCESS) rc = Tss2_Sys_NV_Increment_Complete(sys);
    if (rc != TSS2_RC_SUCCESS) return fail(status_of(rc), "TPM2_NV_Increment failed: " + rc_text(rc));
  }
  return Outcome{};
}

// NV handles defined in [first, last].
Outcome defined_handles(TSS2_SYS_CONTEXT* sys, std::uint32_t first, std::uint32_t last,
                        std::vector<std::uint32_t>& out) {
  std::uint32_t from = first;
  for (;;) {
    TSS2_RC rc = Tss2_Sys_GetCapability_Prepare(sys, TPM2_CAP_HANDLES, from, TPM2_MAX_CAP_HANDLES);
    if (rc == TSS2_RC_SUCCESS) rc = run(sys, nullptr);
    TPMI_YES_NO more = 0;
    TPMS_CAPABILITY_DATA data{};
    if (rc == TSS2_RC_SUCCESS) rc = Tss2_Sys_GetCapability_Complete(sys, &more, &data);
    if (rc != TSS2_RC_SUCCESS) return fail(status_of(rc), "TPM2_GetCapability failed: " + rc_text(rc));
    const auto& handles = data.data.handles;
    std::uint32_t highest = from;
    for (UINT32 i = 0; i < handles.count; ++i) {
      if (handles.handle[i] >= first && handles.handle[i] <= last) out.push_back(handles.handle[i]);
      highest = std::max(highest, handles.handle[i]);
    }
    if (!more || handles.count == 0 || highest >= last) return Outcome{};
    from = highest + 1;
  }
}

Outcome define_counter(TSS2_SYS_CONTEXT* sys, const klms_tpm_target& target, const std::uint8_t* auth,
                       std::size_t auth_len, const std::uint8_t* policy, std::uint32_t first, std::uint32_t last) {
  std::vector<std::uint32_t> used;
  if (Outcome o = defined_handles(sys, first, last, used); o.status != KLMS_WITNESS_OK) return o;
  for (std::uint64_t h = first; h <= last; ++h) {
    const auto index = static_cast<std::uint32_t>(h);
    if (std::find(used.begin(), used.end(), index) != used.end()) continue;
    TPM2B_AUTH nv_auth{};
    nv_auth.size = static_cast<UINT16>(std::min(auth_len, sizeof nv_auth.buffer));
    std::memcpy(nv_auth.buffer, auth, nv_auth.size);
    TPM2B_NV_PUBLIC pub{};
    pub.nvPublic.nvIndex = index;
    pub.nvPublic.nameAlg = TPM2_ALG_SHA256;
    pub.nvPublic.attributes = kCounterAttributes;
    pub.nvPublic.dataSize = 8;
    // A random authPolicy no session can satisfy (a preimage of SHA-256): it authorizes nothing,
    // and without TPMA_NV_POLICYWRITE/POLICYREAD/POLICY_DELETE nothing consults it. It only enters
    // the counter's name (TPM 2.0 Part 1, "NV Index Name"), so that the name a state file records
    // is this binding's and no other counter's, on this TPM or any other.
    pub.nvPublic.authPolicy.size = KLMS_WITNESS_TPM_POLICY_BYTES;
    std::memcpy(pub.nvPublic.authPolicy.buffer, policy, KLMS_WITNESS_TPM_POLICY_BYTES);
    PasswordAuth owner(target.owner_auth, target.owner_auth_len);
    TSS2_RC rc = Tss2_Sys_NV_DefineSpace_Prepare(sys, TPM2_RH_OWNER, &nv_auth, &pub);
    if (rc == TSS2_RC_SUCCESS) rc = run(sys, &owner);
    volatile std::uint8_t* p = nv_auth.buffer;
    for (std::size_t i = 0; i < sizeof nv_auth.buffer; ++i) p[i] = 0;
    if (rc == TSS2_RC_SUCCESS) rc = Tss2_Sys_NV_DefineSpace_Complete(sys);
    if (base_rc(rc) == TPM2_RC_NV_DEFINED) continue;  // another process took it meanwhile
    if (rc != TSS2_RC_SUCCESS) {
      return fail(base_rc(rc) == TPM2_RC_NV_SPACE ? KLMS_WITNESS_NO_SPACE : status_of(rc),
                  "TPM2_NV_DefineSpace failed: " + rc_text(rc));
    }
    // A counter cannot be read before its first increment, which sets it to the highest value any
    // counter of this TPM ever held (TPM 2.0 Part 1, "NV Counters").
    if (Outcome o = increment(sys, index, auth, auth_len, 1); o.status != KLMS_WITNESS_OK) return o;
    return read_value(sys, index, auth, auth_len, target);
  }
  return fail(KLMS_WITNESS_NO_SPACE, "no free NV index in the klms range");
}

// The process's idle connection (at most one): taken by exchange, so a call never waits for
// another and a fork never inherits a held lock.
std::atomic<Connection*> idle_connection{nullptr};

// The connection to `tcti` of this process, or null when a new one must be opened.
std::unique_ptr<Connection> take_connection(const std::string& tcti) {
  Connection* c = idle_connection.exchange(nullptr);
  if (c == nullptr) return nullptr;
  if (c->pid != ::getpid()) c->abandon();  // a forked child's inheritance: never used here
  if (c->pid != ::getpid() || c->tcti != tcti) {
    delete c;
    return nullptr;
  }
  return std::unique_ptr<Connection>(c);
}

void give_back(std::unique_ptr<Connection> c) {
  Connection* expected = nullptr;
  // Kept by the slot now (the pointer is the slot's); else another call put one back first and
  // this one closes here.
  if (idle_connection.compare_exchange_strong(expected, c.get())) (void)c.release();
}

// At exit (or dlclose) the idle connection closes, in the process that opened it only.
__attribute__((destructor)) void close_idle_connection() {
  Connection* c = idle_connection.exchange(nullptr);
  if (c != nullptr && c->pid != ::getpid()) c->abandon();
  delete c;
}

// A new connection: the TCTI, SAPI, and the TPM's reset and restart counts (TPM2_ReadClock).
Outcome open_connection(const std::string& tcti, std::unique_ptr<Connection>& out) {
  auto c = std::make_unique<Connection>();
  c->tcti = tcti;
  TSS2_RC rc = c->open(tcti.c_str());
  if (rc != TSS2_RC_SUCCESS) return fail(KLMS_WITNESS_UNREACHABLE, "cannot reach the TPM at \"" + tcti + "\": " + rc_text(rc));
  TPMS_TIME_INFO time{};
  rc = Tss2_Sys_ReadClock_Prepare(c->sys());
  if (rc == TSS2_RC_SUCCESS) rc = run(c->sys(), nullptr);
  if (rc == TSS2_RC_SUCCESS) rc = Tss2_Sys_ReadClock_Complete(c->sys(), &time);
  if (rc != TSS2_RC_SUCCESS) return fail(status_of(rc), "TPM2_ReadClock failed: " + rc_text(rc));
  c->reset_count = time.clockInfo.resetCount;
  c->restart_count = time.clockInfo.restartCount;
  out = std::move(c);
  return Outcome{};
}

// Runs `work` on the process's connection (or a new one), on a thread of its own, and waits at
// most the deadline. A reused connection that fails at the transport (the TPM restarted, a
// resource manager closed it) is replaced once: a read repeats harmlessly, and an increment that
// did reach the TPM before the failure leaves the counter one ahead, which the caller's read-back
// check refuses (fail closed), never one behind.
template <typename Work>
int bounded(const klms_tpm_target* target, klms_tpm_counter* out, char* message, std::size_t message_len,
            Work work) noexcept {
  auto write_message = [&](const std::string& text) {
    if (message != nullptr && message_len != 0) std::snprintf(message, message_len, "%s", text.c_str());
  };
  if (target == nullptr || target->tcti == nullptr) {
    write_message("no TCTI configured");
    return KLMS_WITNESS_UNREACHABLE;
  }
  struct Job {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    Outcome outcome;
    std::string tcti;
    std::vector<std::uint8_t> owner_auth;
    klms_tpm_target target{};
  };
  try {
    auto job = std::make_shared<Job>();
    job->tcti = target->tcti;
    job->owner_auth.assign(target->owner_auth, target->owner_auth + target->owner_auth_len);
    job->target = *target;
    job->target.tcti = job->tcti.c_str();
    job->target.owner_auth = job->owner_auth.data();
    std::thread([job, work]() mutable {
      Outcome result;
      try {
        std::unique_ptr<Connection> connection = take_connection(job->tcti);
        const bool reused = connection != nullptr;
        if (!reused) result = open_connection(job->tcti, connection);
        if (connection) result = work(connection->sys(), job->target);
        if (reused && result.status == KLMS_WITNESS_UNREACHABLE) {
          connection.reset();
          result = open_connection(job->tcti, connection);
          if (connection) result = work(connection->sys(), job->target);
        }
        if (connection) {
          result.counter.reset_count = connection->reset_count;
          result.counter.restart_count = connection->restart_count;
          if (result.status != KLMS_WITNESS_UNREACHABLE) give_back(std::move(connection));
        }
      } catch (...) {
        result = fail(KLMS_WITNESS_TPM_ERROR, "out of memory");
      }
      std::fill(job->owner_auth.begin(), job->owner_auth.end(), 0);
      std::lock_guard lock(job->mutex);
      job->outcome = std::move(result);
      job->done = true;
      job->done_cv.notify_all();
    }).detach();
    std::unique_lock lock(job->mutex);
    const auto limit = std::chrono::milliseconds(target->timeout_ms == 0 ? 1 : target->timeout_ms);
    if (!job->done_cv.wait_for(lock, limit, [&] { return job->done; })) {
      write_message("the TPM at \"" + job->tcti + "\" did not answer within " + std::to_string(target->timeout_ms) +
                    " ms");
      return KLMS_WITNESS_DEADLINE;
    }
    if (out != nullptr) *out = job->outcome.counter;
    write_message(job->outcome.message);
    return job->outcome.status;
  } catch (...) {
    write_message("cannot start the TPM call");
    return KLMS_WITNESS_TPM_ERROR;
  }
}

int api_define(const klms_tpm_target* target, const std::uint8_t* auth, std::size_t auth_len,
               const std::uint8_t* policy, std::uint32_t first, std::uint32_t last, klms_tpm_counter* out,
               char* message, std::size_t message_len) {
  if (policy == nullptr) return KLMS_WITNESS_TPM_ERROR;
  std::vector<std::uint8_t> secret(auth, auth + auth_len);
  std::vector<std::uint8_t> chosen(policy, policy + KLMS_WITNESS_TPM_POLICY_BYTES);
  return bounded(target, out, message, message_len,
                 [secret, chosen, first, last](TSS2_SYS_CONTEXT* sys, const klms_tpm_target& t) {
                   return define_counter(sys, t, secret.data(), secret.size(), chosen.data(), first, last);
                 });
}

int api_read(const klms_tpm_target* target, std::uint32_t index, const std::uint8_t* auth, std::size_t auth_len,
             klms_tpm_counter* out, char* message, std::size_t message_len) {
  const bool as_owner = auth == nullptr;
  std::vector<std::uint8_t> secret = as_owner ? std::vector<std::uint8_t>{} : std::vector<std::uint8_t>(auth, auth + auth_len);
  return bounded(target, out, message, message_len,
                 [secret, index, as_owner](TSS2_SYS_CONTEXT* sys, const klms_tpm_target& t) {
                   return read_value(sys, index, as_owner ? nullptr : secret.data(), secret.size(), t);
                 });
}

int api_increment(const klms_tpm_target* target, std::uint32_t index, const std::uint8_t* auth,
                  std::size_t auth_len, std::uint64_t times, klms_tpm_counter* out, char* message,
                  std::size_t message_len) {
  std::vector<std::uint8_t> secret(auth, auth + auth_len);
  return bounded(target, out, message, message_len,
                 [secret, index, times](TSS2_SYS_CONTEXT* sys, const klms_tpm_target& t) {
                   if (Outcome o = increment(sys, index, secret.data(), secret.size(), times);
                       o.status != KLMS_WITNESS_OK) {
                     return o;
                   }
                   return read_value(sys, index, secret.data(), secret.size(), t);
                 });
}

int api_undefine(const klms_tpm_target* target, std::uint32_t index, const std::uint8_t* name, std::size_t name_len,
                 char* message, std::size_t message_len) {
  if (name == nullptr || name_len == 0 || name_len > KLMS_WITNESS_TPM_NAME_MAX) return KLMS_WITNESS_TPM_ERROR;
  std::vector<std::uint8_t> expected(name, name + name_len);
  return bounded(target, nullptr, message, message_len, [index, expected](TSS2_SYS_CONTEXT* sys, const klms_tpm_target& t) {
    klms_tpm_counter now{};
    TPM2B_NV_PUBLIC pub;
    if (Outcome o = read_public(sys, index, pub, now); o.status != KLMS_WITNESS_OK) return o;
    // The binding the caller read, and no other: a counter defined at the freed handle since (another
    // key's) is never undefined for this one.
    if (now.name_len != expected.size() || std::memcmp(now.name, expected.data(), expected.size()) != 0) {
      return fail(KLMS_WITNESS_NOT_OURS, "another counter is at that NV index now");
    }
    PasswordAuth owner(t.owner_auth, t.owner_auth_len);
    TSS2_RC rc = Tss2_Sys_NV_UndefineSpace_Prepare(sys, TPM2_RH_OWNER, index);
    if (rc == TSS2_RC_SUCCESS) rc = run(sys, &owner);
    if (rc == TSS2_RC_SUCCESS) rc = Tss2_Sys_NV_UndefineSpace_Complete(sys);
    if (rc != TSS2_RC_SUCCESS) return fail(status_of(rc), "TPM2_NV_UndefineSpace failed: " + rc_text(rc));
    return Outcome{};
  });
}

const klms_witness_tpm_api kApi = {KLMS_WITNESS_TPM_ABI_VERSION, api_define, api_read, api_increment, api_undefine};

}  // namespace

extern "C" __attribute__((visibility("default"))) const klms_witness_tpm_api* klms_witness_tpm_v2(void) {
  // tpm2-tss prints its own ERROR lines on stderr (a TCTI that cannot connect prints four) next to
  // the refusal that already says what failed, in brackets. Quiet unless the user set TSS2_LOG
  // (e.g. TSS2_LOG=all+error): each tpm2-tss library reads it at its first log call, after this.
  // Called once per process, by the loader (state/witness_module.h), before any TPM call.
  ::setenv("TSS2_LOG", "all+none", 0);
  return &kApi;
}
