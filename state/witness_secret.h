// The state directory's witness secret: 32 random bytes in `<state directory>/klms-witness.secret`
// (0600, created exclusively on the first witness binding in that directory). A key's TPM counter
// authorization is derived from it (state/witness_tpm.h), so that another user who can reach the
// TPM cannot advance — and so burn — a key's counter, while klms-state's recovery commands work
// without the private key (docs/state.md "The witness", "Who may advance a counter").
#pragma once

#include <string>

#include "base/error.h"
#include "state/store.h"
#include "state/witness_tpm.h"

namespace klms::state {

inline constexpr const char* kWitnessSecretName = "klms-witness.secret";

// The counter authorization of `key_id` for the state file at `state_path`. `create`: make the
// directory's secret when it has none (binding); otherwise kWitnessSecretMissing.
Result<tpm::CounterAuth> counter_auth_of(const std::string& state_path, const KeyId& key_id, bool create) noexcept;

}  // namespace klms::state
