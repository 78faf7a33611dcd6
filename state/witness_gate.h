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
// increments) gets its increments completed here — unless the gap is larger than the file's last
// write explains (a counter with a per-binding policy records it): kWitnessMismatch. kOk,
// kStateBehindWitness, kWitnessRequired, kWitnessMismatch, or the TPM layer's errors. Unwitnessed
// files: kOk at once. `seen`, when given, gets the counter as read (for record_write).
Error settle(const format::Slot& slot, const std::string& path, const StateOptions& options,
             CounterReading* seen = nullptr) noexcept;

// Before `updated` is written: a TPM record with a per-binding policy records that this write
// moves next by `advanced` before its increments, and the TPM's reset counts `seen` says.
void record_write(format::Slot& updated, std::uint64_t advanced, const CounterReading& seen) noexcept;

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

// Releases the counter a file is bound to (TPM: owner authorization; etcd: the host's record),
// after checking it is still this binding's: the recorded name, and the binding's own
// authorization when `path`'s directory has the witness secret. kWitnessMissing when gone
// already; kWitnessMismatch (nothing released) when another counter holds the handle now;
// kWitnessSecretMissing (nothing released) for a counter bound before per-binding policies whose
// binding cannot be told from another's without the secret.
Error release(const WitnessRecord& record, const KeyId& key_id, const StateOptions& options,
              const std::string& path = {}) noexcept;

// A TPM binding a recovery command replaces (docs/state.md "One binding, one name"): a counter
// bound before per-binding policies, or one read with the owner's authorization because the
// directory's witness secret is gone (the file could never advance it).
bool needs_rebinding(const format::Slot& slot, const WitnessStatus& status) noexcept;

// Replaces `slot`'s TPM binding by a new counter at slot.next: the new counter is defined, then
// the old one is released (checked as release() checks it; a gone one is fine), and only then
// may the caller write the returned record — so no copy of the file bound to the old counter can
// sign after the new binding exists. On failure the new counter is released again.
Result<WitnessRecord> rebind(const format::Slot& slot, const std::string& path, const StateOptions& options) noexcept;

// An etcd fleet file's reservation (docs/fleet.md "How indices are handed out"): up to `want`
// indices from the host's record, committed by the cluster before this returns; the caller writes
// the grant's binding and next = start + count before handing any out.
Result<etcd::Grant> reserve_from_fleet(const format::Slot& slot, std::uint64_t want, const StateOptions& options) noexcept;

// The witnessed high-water mark of `slot`'s counter, read with the binding's own authorization
// (its directory's secret, `path` naming the state file, or for a restore the file to be). With
// `owner_fallback`, a directory without the secret (or no `path`) reads with the owner's
// authorization instead and says so (status.read_as_owner): recovery and display work without the
// secret; signing never does. `status` is filled for display whatever happens.
Result<std::uint64_t> high_water(const format::Slot& slot, const StateOptions& options, WitnessStatus& status,
                                 const std::string& path = {}, bool owner_fallback = true) noexcept;

// At open: refuses a file its witness says is behind (or that is not bound yet), without writing.
Error check_at_open(const format::Slot& slot, const std::string& path, const StateOptions& options) noexcept;

// Display: fills info.witness from the counter (never fails; an error becomes a state); `path`
// as for high_water.
void describe(const format::Slot& slot, const StateOptions& options, StateInfo& info,
              const std::string& path = {}) noexcept;

}  // namespace klms::state::witness
