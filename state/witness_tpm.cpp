// Loads klms-witness-tpm.so on first use and calls it (state/witness_tpm.h).
#include "state/witness_tpm.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "hashes/backend.h"
#include "state/io.h"
#include "state/witness_module.h"
#include "state/witness_module_abi.h"

namespace klms::state::tpm {
namespace {

struct Module {
  const klms_witness_tpm_api* api = nullptr;
  std::string error;  // why it could not be loaded
};

// Loaded once per process (state/witness_module.h).
const Module& module() noexcept {
  static Module loaded;
  static std::once_flag once;
  std::call_once(once, [] {
    loaded.api = static_cast<const klms_witness_tpm_api*>(
        open_witness_module(KLMS_WITNESS_TPM_MODULE, KLMS_WITNESS_TPM_ENTRY, KLMS_WITNESS_TPM_ABI_VERSION, "TPM witness", "klms-witness-tpm", loaded.error));
  });
  return loaded;
}

// What the module said of this thread's last failed call, for the refusal's brackets (state/remedy.h).
thread_local std::string t_last_message;

Error error_of(int status) noexcept {
  switch (status) {
    case KLMS_WITNESS_OK: return Error::kOk;
    case KLMS_WITNESS_UNREACHABLE:
    case KLMS_WITNESS_DEADLINE: return Error::kWitnessUnreachable;
    case KLMS_WITNESS_MISSING: return Error::kWitnessMissing;
    case KLMS_WITNESS_AUTH_FAILED: return Error::kWitnessAuthFailed;
    case KLMS_WITNESS_NO_SPACE: return Error::kWitnessNoSpace;
    case KLMS_WITNESS_NOT_OURS: return Error::kWitnessMismatch;
    default: return Error::kWitnessFailed;
  }
}

// The configuration as the module takes it, alive for one call.
struct Target {
  std::string tcti;
  klms_tpm_target c{};
  Target(const WitnessConfig& config, std::uint64_t increments) : tcti(resolved_tcti(config)) {
    c.tcti = tcti.c_str();
    const std::uint64_t ms = config.timeout_ms + increments * kTpmMillisPerIncrement;
    c.timeout_ms = ms > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<unsigned>(ms);
    c.owner_auth = reinterpret_cast<const std::uint8_t*>(config.tpm_owner_auth.data());
    c.owner_auth_len = config.tpm_owner_auth.size();
  }
};

CounterReading reading_of(const klms_tpm_counter& c) noexcept {
  CounterReading r;
  r.nv_index = c.nv_index;
  r.value = c.value;
  const std::size_t name_len = std::min(c.name_len, r.raw_name.size());
  hashes::sha256_digest(c.name, name_len, r.name.data());
  std::memcpy(r.raw_name.data(), c.name, name_len);
  r.raw_name_len = name_len;
  r.policy = c.policy_len == KLMS_WITNESS_TPM_POLICY_BYTES;
  r.reset_count = c.reset_count;
  r.restart_count = c.restart_count;
  return r;
}

template <typename Call>
Result<CounterReading> call(const WitnessConfig& config, std::uint64_t increments, std::string* message,
                            Call&& body) noexcept {
  t_last_message.clear();
  const Module& m = module();
  if (m.api == nullptr) {
    if (message != nullptr) try { *message = m.error; } catch (...) {}
    return Error::kWitnessModuleMissing;
  }
  try {
    Target target(config, increments);
    klms_tpm_counter out{};
    char text[256] = {0};
    const int status = body(*m.api, target.c, out, text, sizeof text);
    if (message != nullptr) *message = text;
    if (status != KLMS_WITNESS_OK) {
      t_last_message = text;
      return error_of(status);
    }
    return reading_of(out);
  } catch (...) {
    return Error::kOutOfMemory;
  }
}

}  // namespace

const std::string& last_message() noexcept { return t_last_message; }

Result<CounterReading> define_counter(const WitnessConfig& config, const CounterAuth& auth,
                                      std::string* message) noexcept {
  // Fresh for every binding, and never kept: the name the state file records carries it.
  std::array<std::uint8_t, KLMS_WITNESS_TPM_POLICY_BYTES> policy{};
  if (Error e = io::fill_random(policy.data(), policy.size()); e != Error::kOk) return e;
  return call(config, 1, message, [&](const klms_witness_tpm_api& api, const klms_tpm_target& t, klms_tpm_counter& out,
                                      char* text, std::size_t len) {
    return api.define_counter(&t, auth.data(), auth.size(), policy.data(), kTpmFirstIndex, kTpmLastIndex, &out, text,
                              len);
  });
}

Result<CounterReading> read_counter(const WitnessConfig& config, std::uint32_t nv_index, const CounterAuth* auth,
                                    std::string* message) noexcept {
  return call(config, 0, message, [&](const klms_witness_tpm_api& api, const klms_tpm_target& t, klms_tpm_counter& out,
                                      char* text, std::size_t len) {
    return api.read_counter(&t, nv_index, auth != nullptr ? auth->data() : nullptr, auth != nullptr ? auth->size() : 0,
                            &out, text, len);
  });
}

Result<CounterReading> increment_counter(const WitnessConfig& config, std::uint32_t nv_index,
                                         const CounterAuth& auth, std::uint64_t times, std::string* message) noexcept {
  return call(config, times, message, [&](const klms_witness_tpm_api& api, const klms_tpm_target& t,
                                          klms_tpm_counter& out, char* text, std::size_t len) {
    return api.increment_counter(&t, nv_index, auth.data(), auth.size(), times, &out, text, len);
  });
}

Error undefine_counter(const WitnessConfig& config, const CounterReading& counter, std::string* message) noexcept {
  auto r = call(config, 0, message, [&](const klms_witness_tpm_api& api, const klms_tpm_target& t, klms_tpm_counter&,
                                        char* text, std::size_t len) {
    return api.undefine_counter(&t, counter.nv_index, counter.raw_name.data(), counter.raw_name_len, text, len);
  });
  return r ? Error::kOk : r.error();
}

Error probe(const WitnessConfig& config, std::string* message) noexcept {
  // The handle just below klms's range is never ours: a TPM that answers says "no such index".
  auto r = read_counter(config, kTpmFirstIndex - 1, nullptr, message);
  if (r || r.error() == Error::kWitnessMissing || r.error() == Error::kWitnessMismatch) return Error::kOk;
  return r.error();
}

}  // namespace klms::state::tpm
