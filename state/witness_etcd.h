// The etcd fleet witness (docs/fleet.md) through the separately built module klms-witness-etcd.so
// (witness/etcd/, state/witness_module_abi.h), loaded on first use only: a process that signs
// without an etcd witness never loads it, neon or GnuTLS.
#pragma once

#include <cstdint>
#include <string>

#include "base/error.h"
#include "state/store.h"
#include "state/witness.h"

namespace klms::state::etcd {

struct Grant {
  std::uint64_t start = 0;
  std::uint64_t count = 0;
  FleetBinding binding;  // what the state file must record before any index is used
};

struct KeyDescription {
  std::uint64_t max_signatures = 0;
  LevelsDigest levels_digest{};
};

// Every call: kOk, or a witness error (kWitnessUnreachable, kWitnessMissing, kWitnessAuthFailed,
// kWitnessDenied, kWitnessWentBackwards, kWitnessRecreated, kWitnessOtherCluster,
// kWitnessOlderRevision, kExhausted, kExhaustionNotAcknowledged, kWitnessFailed); `message` gets
// what the module said.
Result<FleetBinding> create_key(const WitnessConfig& config, const KeyId& key_id, const KeyDescription& key,
                                std::uint64_t first_index, std::string* message = nullptr) noexcept;
Result<FleetBinding> join(const WitnessConfig& config, const KeyId& key_id, KeyDescription& key,
                          std::string* message = nullptr) noexcept;
// `gate`: the first of the key's last indices, which wait for the file's acknowledgement
// (format::Slot::acknowledgement_gate); a grant reaching past it is refused before anything is
// committed (kExhaustionNotAcknowledged).
Result<Grant> reserve(const WitnessConfig& config, const KeyId& key_id, std::uint64_t max_signatures,
                      const FleetBinding& in, std::uint64_t local_next, std::uint64_t want, std::uint64_t gate,
                      std::string* message = nullptr) noexcept;
Error read(const WitnessConfig& config, const KeyId& key_id, const FleetBinding& in, std::uint64_t local_next,
           WitnessStatus& status) noexcept;
Error leave(const WitnessConfig& config, const KeyId& key_id, const FleetBinding& in,
            std::string* message = nullptr) noexcept;
Result<FleetBinding> resync(const WitnessConfig& config, const KeyId& key_id, std::uint64_t max_signatures,
                            const FleetBinding& in, std::uint64_t local_next, std::uint64_t counter_at_least,
                            std::string* message = nullptr) noexcept;
// kOk when the cluster answers (before a long key generation).
Error probe(const WitnessConfig& config, std::string* message = nullptr) noexcept;

// The message of the last failed call on this thread (for the provider's error data).
const std::string& last_message() noexcept;

}  // namespace klms::state::etcd
