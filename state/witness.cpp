#include "state/witness.h"

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <iterator>

#include "klms/klms.h"

namespace klms::state {

const char* witness_kind_name(WitnessKind kind) noexcept {
  switch (kind) {
    case WitnessKind::kNone: return "none";
    case WitnessKind::kTpm: return "tpm";
    case WitnessKind::kEtcd: return "etcd";
  }
  return "unknown";
}

const char* witness_state_name(WitnessState state) noexcept {
  switch (state) {
    case WitnessState::kNone: return "none";
    case WitnessState::kRequired: return "required (not bound on this host yet)";
    case WitnessState::kAgrees: return "agrees";
    case WitnessState::kPending: return "pending (increments to complete)";
    case WitnessState::kBehind: return "BEHIND (the state file was restored or rolled back)";
    case WitnessState::kUnreachable: return "unreachable";
    case WitnessState::kMissing: return "missing (no such counter on this TPM)";
    case WitnessState::kDifferent: return "different (another counter at that index)";
    case WitnessState::kRefused: return "refused by the witness";
    case WitnessState::kSkips: return "ahead (the next reservation skips what the host record covers)";
    case WitnessState::kNoModule: return "no module (it cannot be loaded)";
  }
  return "unknown";
}

WitnessRecord required_record(WitnessKind kind) noexcept {
  WitnessRecord record;
  record.kind = kind;
  record.tpm_policy = kind == WitnessKind::kTpm;
  return record;
}

WitnessRecord tpm_record_of(const CounterReading& reading, std::uint64_t next) noexcept {
  WitnessRecord record;
  record.kind = WitnessKind::kTpm;
  record.nv_index = reading.nv_index;
  record.base = reading.value - next;  // so that value - base == next
  record.counter_name = reading.name;
  record.tpm_policy = reading.policy;
  record.tpm_reset_count = reading.reset_count;
  record.tpm_restart_count = reading.restart_count;
  return record;
}

std::string resolved_tcti(const WitnessConfig& config) {
  if (!config.tpm_tcti.empty()) return config.tpm_tcti;
  if (const char* env = std::getenv(KLMS_ENV_TPM_TCTI); env != nullptr && *env != '\0') return env;
  return "device:/dev/tpmrm0";  // the kernel's resource manager, named explicitly
}

Error check_witness_budget(WitnessKind kind, std::uint64_t max_signatures, const WitnessConfig& config) noexcept {
  if (kind != WitnessKind::kTpm) return Error::kOk;
  const std::uint64_t nv_writes = max_signatures / kTpmIncrementsPerNvWrite + 1;
  return nv_writes > config.tpm_nv_write_budget ? Error::kWitnessBudget : Error::kOk;
}

namespace {
std::string from_env(const std::string& configured, const char* variable) {
  if (!configured.empty()) return configured;
  const char* env = std::getenv(variable);
  return env != nullptr ? env : "";
}
}  // namespace

ResolvedEtcd::~ResolvedEtcd() { std::fill(password.begin(), password.end(), '\0'); }

Error resolve_etcd(const WitnessConfig& config, ResolvedEtcd& out, std::string* why, bool with_password) {
  out.endpoints = from_env(config.etcd_endpoints, KLMS_ENV_ETCD_ENDPOINTS);
  out.prefix = from_env(config.etcd_prefix, KLMS_ENV_ETCD_PREFIX);
  if (out.prefix.empty()) out.prefix = "/klms";
  out.cacert = from_env(config.etcd_cacert, KLMS_ENV_ETCD_CACERT);
  out.cert = from_env(config.etcd_cert, KLMS_ENV_ETCD_CERT);
  out.key = from_env(config.etcd_key, KLMS_ENV_ETCD_KEY);
  out.user = from_env(config.etcd_user, KLMS_ENV_ETCD_USER);
  out.timeout_ms = config.etcd_timeout_ms;
  out.block = config.etcd_block;
  if (out.block == 0) {
    const std::string env = from_env({}, KLMS_ENV_ETCD_BLOCK);
    out.block = 256;
    if (!env.empty()) {
      try {
        const unsigned long long n = std::stoull(env);
        if (n > 0 && n <= (1ull << 32)) out.block = n;
      } catch (...) {}
    }
  }
  if (!with_password) return Error::kOk;
  out.password = config.etcd_password;
  if (out.password.empty() && !out.user.empty()) {
    const char* file = std::getenv(KLMS_ENV_ETCD_PASSWORD_FILE);
    if (file == nullptr || *file == '\0') {
      if (why != nullptr) *why = "etcd user \"" + out.user + "\" has no password: set etcd_password_file or " KLMS_ENV_ETCD_PASSWORD_FILE;
      return Error::kWitnessAuthFailed;
    }
    // stdio, not <fstream>: iostreams would link libstdc++'s locale machinery into klms.so, whose
    // static initializers and relocations every process that loads the provider pays for
    // (docs/install.md "Load cost and self-tests").
    std::FILE* in = std::fopen(file, "rbe");
    if (in == nullptr) {
      if (why != nullptr) *why = std::string("cannot read the etcd password file ") + file;
      return Error::kWitnessAuthFailed;
    }
    char buf[256];
    std::size_t len = 0;
    while ((len = std::fread(buf, 1, sizeof buf, in)) > 0) out.password.append(buf, len);
    std::fclose(in);
    std::fill(std::begin(buf), std::end(buf), '\0');
    while (!out.password.empty() && (out.password.back() == '\n' || out.password.back() == '\r')) out.password.pop_back();
  }
  return Error::kOk;
}

}  // namespace klms::state
