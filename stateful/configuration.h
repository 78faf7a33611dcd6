// Where state files go and how they are checked, as every front door of the stateful layer is
// configured (the provider from its openssl.cnf section, docs/design.md "Configuration"; a PKCS#11
// token from its own): the keys of that configuration, and the state store's options they make.
#pragma once

#include <cstdint>
#include <string>

#include "state/exhaustion.h"
#include "state/store.h"
#include "state/witness.h"

namespace klms::stateful {

struct Configuration {
  std::string state_dir;          // empty: not configured
  std::uint64_t reserve = 1;      // indices reserved per durable write (docs/state.md §8)
  bool allow_network_fs = false;  // docs/state.md §12
  // docs/state.md "The witness": the default for new keys (`witness`), and where a TPM is
  // (`tpm_tcti`, `tpm_timeout_ms`, `tpm_owner_auth_file`, `tpm_nv_write_budget`).
  state::WitnessKind witness = state::WitnessKind::kNone;
  state::WitnessConfig witness_config;
  bool allow_no_file_handles = false;  // docs/state.md §18
  // The T key generation records in a new state file (docs/state.md §5; 0: never warn, never
  // gate). RFC 10033 §3 asks implementations to warn before exhaustion. Every later reader takes T
  // from the state file, so that klms-state and the provider agree.
  std::uint64_t low_signatures_warning = state::kDefaultLowSignaturesWarning;
};

// The state store's options for opening, reading and creating state files under `config` (the
// witness of a new key is chosen by key_state_options, stateful/state_location.h).
state::StateOptions state_options(const Configuration& config) noexcept;

}  // namespace klms::stateful
