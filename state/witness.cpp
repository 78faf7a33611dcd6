#include "state/witness.h"

#include <cstdlib>

#include "klms/klms.h"

namespace klms::state {

const char* witness_kind_name(WitnessKind kind) noexcept {
  switch (kind) {
    case WitnessKind::kNone: return "none";
    case WitnessKind::kTpm: return "tpm";
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
    case WitnessState::kRefused: return "refused by the TPM";
  }
  return "unknown";
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

}  // namespace klms::state
