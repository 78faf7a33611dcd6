// The TPM 2.0 counter behind a witnessed state file, through the separately built module
// klms-witness-tpm.so (witness/tpm/, state/witness_module_abi.h), loaded on first use only: a
// process that signs without a TPM witness never loads it nor tpm2-tss.
//
// Where the module is: state/witness_module.h. The module keeps one connection per process; each
// call runs under the configured deadline.
#pragma once

#include <cstdint>
#include <string>

#include "base/error.h"
#include "base/secret.h"
#include "state/witness.h"

namespace klms::state::tpm {

// The authorization value of a key's counter: HMAC-SHA256 of the state directory's witness secret
// (state/witness_secret.h) over "klms tpm counter" and the key id. Never written anywhere.
using CounterAuth = SecretArray<32>;

// Every call: kOk, or kWitnessModuleMissing (state/witness_module.h), kWitnessUnreachable (no TPM, deadline), kWitnessMissing,
// kWitnessAuthFailed, kWitnessNoSpace, kWitnessMismatch (not a klms counter), kWitnessFailed;
// `message` (when given) gets what the TPM layer said.
Result<CounterReading> define_counter(const WitnessConfig& config, const CounterAuth& auth,
                                      std::string* message = nullptr) noexcept;
// auth null: read with the owner's authorization (display reads need no secret).
Result<CounterReading> read_counter(const WitnessConfig& config, std::uint32_t nv_index, const CounterAuth* auth,
                                    std::string* message = nullptr) noexcept;
Result<CounterReading> increment_counter(const WitnessConfig& config, std::uint32_t nv_index,
                                         const CounterAuth& auth, std::uint64_t times,
                                         std::string* message = nullptr) noexcept;
// Undefines the counter `counter` was read from, only while its name is still the one read
// (kWitnessMismatch, nothing undefined, when another counter took the handle meanwhile).
Error undefine_counter(const WitnessConfig& config, const CounterReading& counter, std::string* message = nullptr) noexcept;

// What the module said of this thread's last failed call ("" after a success): the cause the
// refusals carry in brackets (state/remedy.h).
const std::string& last_message() noexcept;

// kOk when a TPM answers at the configured TCTI (before hours of key generation).
Error probe(const WitnessConfig& config, std::string* message = nullptr) noexcept;

}  // namespace klms::state::tpm
