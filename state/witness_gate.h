// The witness's steps in the state store's writes and reads (docs/state.md "The witness"): what a
// reservation, a lease, an adoption, key generation and a display read do with a witnessed file.
// Every function here runs under the file's locks (or, for display, its shared lock).
#pragma once

#include <cstdint>
#include <string>

#include "base/error.h"
#include "state/file_format.h"
#include "state/store.h"
#include "state/witness_etcd.h"
#include "state/witness_tpm.h"

namespace klms::state::witness {

// Before a write that hands out indices from `slot`: the file must agree with its witness. A
// witnessed file whose witness is behind (a process died between the file write and the
// increments) gets its increments completed here. kOk, kStateBehindWitness, kWitnessRequired,
// kWitnessMismatch, or the TPM layer's errors. Unwitnessed files: kOk at once.
Error settle(const format::Slot& slot, const std::string& path, const StateOptions& options) noexcept;

// After `updated` (next moved by `advanced` indices from the slot settle() accepted) is durable:
// advance the counter as many times and check the value read back is exactly base + updated.next.
// Only then may the indices be handed out.
Error advance(const format::Slot& updated, std::uint64_t advanced, const std::string& path,
              const StateOptions& options) noexcept;

// Binds a new counter of `kind` to `slot` (its key id, next index, maximum and levels digest): a
// TPM counter is defined (creating the directory's witness secret if needed); an etcd key gets its
// counter, description and first host record. Returns the witness record to write. The counter
// exists before the file records it: a crash in between leaves an unused counter, never an
// unwitnessed file that believes itself witnessed.
Result<WitnessRecord> bind(WitnessKind kind, const format::Slot& slot, const std::string& path,
                           const StateOptions& options) noexcept;

// Releases the counter a file is bound to (TPM: owner authorization; etcd: the host's record).
// kWitnessMissing when gone already.
Error release(const WitnessRecord& record, const KeyId& key_id, const StateOptions& options) noexcept;

// An etcd fleet file's reservation (docs/fleet.md "How indices are handed out"): up to `want`
// indices from the host's record, committed by the cluster before this returns; the caller writes
// the grant's binding and next = start + count before handing any out.
Result<etcd::Grant> reserve_from_fleet(const format::Slot& slot, std::uint64_t want, const StateOptions& options) noexcept;

// The witnessed high-water mark of `slot`'s counter: read with the counter's own authorization
// when `path` names the state file (its directory's secret), else with the owner's (display reads
// and recovery need no secret). `status` is filled for display whatever happens.
Result<std::uint64_t> high_water(const format::Slot& slot, const StateOptions& options, WitnessStatus& status,
                                 const std::string& path = {}) noexcept;

// At open: refuses a file its witness says is behind (or that is not bound yet), without writing.
Error check_at_open(const format::Slot& slot, const std::string& path, const StateOptions& options) noexcept;

// Display: fills info.witness from the counter (never fails; an error becomes a state).
void describe(const format::Slot& slot, const StateOptions& options, StateInfo& info) noexcept;

}  // namespace klms::state::witness
