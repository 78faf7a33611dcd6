#include "state/witness_gate.h"

#include <optional>

#include "state/witness_secret.h"

namespace klms::state::witness {
namespace {

// The witnessed high-water mark of a reading, and whether the reading is the file's counter.
Result<std::uint64_t> high_water_of(const format::Slot& slot, const CounterReading& reading) noexcept {
  if (reading.nv_index != slot.witness.nv_index || reading.name != slot.witness.counter_name) {
    return Error::kWitnessMismatch;
  }
  return reading.value - slot.witness.base;  // mod 2^64, as the base was recorded
}

Result<tpm::CounterAuth> auth_of(const format::Slot& slot, const std::string& path, bool create) noexcept {
  return counter_auth_of(path, slot.key_id, create);
}

}  // namespace

Error settle(const format::Slot& slot, const std::string& path, const StateOptions& options,
             CounterReading* seen) noexcept {
  if (slot.witness_required()) return Error::kWitnessRequired;
  if (!slot.witnessed()) return Error::kOk;
  // A fleet file reserves through reserve_from_fleet, which commits in etcd before the file write.
  if (slot.witness.kind == WitnessKind::kEtcd) return Error::kOk;
  if (slot.witness.kind != WitnessKind::kTpm) return Error::kWitnessUnsupported;
  auto auth = auth_of(slot, path, false);
  if (!auth) return auth.error();
  auto reading = tpm::read_counter(options.witness_config, slot.witness.nv_index, &*auth);
  if (!reading) return reading.error();
  if (seen != nullptr) *seen = *reading;
  auto hw = high_water_of(slot, *reading);
  if (!hw) return hw.error();
  if (*hw == slot.next) return Error::kOk;
  // Beyond the key's maximum is no high-water mark of this file: another writer, or another base.
  if (*hw > slot.max_signatures) return Error::kWitnessMismatch;
  if (*hw > slot.next) return Error::kStateBehindWitness;
  // hw < next: the last write's increments did not all happen; none of its indices left. Never
  // more than that write moved next (when the file records it): a counter further behind is not
  // this file's history, and completing the gap would let this file sign what it never reserved.
  if (slot.witness.tpm_policy && slot.next - *hw > slot.witness.last_reservation) return Error::kWitnessMismatch;
  auto done = tpm::increment_counter(options.witness_config, slot.witness.nv_index, *auth, slot.next - *hw);
  if (!done) return done.error();
  if (seen != nullptr) *seen = *done;
  auto after = high_water_of(slot, *done);
  if (!after) return after.error();
  return *after == slot.next ? Error::kOk : Error::kWitnessMismatch;
}

void record_write(format::Slot& updated, std::uint64_t advanced, const CounterReading& seen) noexcept {
  WitnessRecord& w = updated.witness;
  if (!updated.witnessed() || w.kind != WitnessKind::kTpm || !w.tpm_policy) return;
  w.last_reservation = advanced;
  if (seen.nv_index == w.nv_index && seen.name == w.counter_name) {
    w.tpm_reset_count = seen.reset_count;
    w.tpm_restart_count = seen.restart_count;
  }
}

Error advance(const format::Slot& updated, std::uint64_t advanced, const std::string& path,
              const StateOptions& options) noexcept {
  if (!updated.witnessed() || advanced == 0 || updated.witness.kind == WitnessKind::kEtcd) return Error::kOk;
  auto auth = auth_of(updated, path, false);
  if (!auth) return auth.error();
  auto done = tpm::increment_counter(options.witness_config, updated.witness.nv_index, *auth, advanced);
  if (!done) return done.error();
  // The value read back after our own increments, never an assumed one: anything but exactly the
  // file's next means another writer (or a jump) and nothing is handed out.
  auto hw = high_water_of(updated, *done);
  if (!hw) return hw.error();
  return *hw == updated.next ? Error::kOk : Error::kWitnessMismatch;
}

Result<WitnessRecord> bind(WitnessKind kind, const format::Slot& slot, const std::string& path,
                           const StateOptions& options) noexcept {
  const KeyId& key_id = slot.key_id;
  const std::uint64_t next = slot.next;
  if (kind == WitnessKind::kEtcd) {
    etcd::KeyDescription key;
    key.max_signatures = slot.max_signatures;
    key.levels_digest = slot.levels_digest;
    auto binding = etcd::create_key(options.witness_config, key_id, key, next);
    if (!binding) return binding.error();
    WitnessRecord record;
    record.kind = WitnessKind::kEtcd;
    record.fleet = *binding;
    return record;
  }
  if (kind != WitnessKind::kTpm) return Error::kWitnessUnsupported;
  auto auth = counter_auth_of(path, key_id, /*create=*/true);
  if (!auth) return auth.error();
  auto reading = tpm::define_counter(options.witness_config, *auth);
  if (!reading) return reading.error();
  // A module that defined a counter without the policy would make a name every klms counter at
  // that handle shares: never recorded as a per-binding one.
  if (!reading->policy) return Error::kWitnessMismatch;
  return tpm_record_of(*reading, next);
}

namespace {

// The counter `record` names, read and checked to be this binding's: the recorded name, and the
// binding's own authorization when `path`'s directory has the witness secret (for a counter bound
// before per-binding policies the authorization is required: its name is every klms counter's).
Result<CounterReading> identify(const WitnessRecord& record, const KeyId& key_id, const StateOptions& options,
                                const std::string& path) noexcept {
  std::optional<tpm::CounterAuth> auth;
  if (!path.empty()) {
    auto a = counter_auth_of(path, key_id, false);
    if (a) auth = *a;
    else if (a.error() != Error::kWitnessSecretMissing) return a.error();
  }
  if (!auth && !record.tpm_policy) return Error::kWitnessSecretMissing;
  auto reading = tpm::read_counter(options.witness_config, record.nv_index, auth ? &*auth : nullptr);
  if (!reading) {
    // Another key's (or directory's) counter refuses this binding's authorization: not ours.
    return reading.error() == Error::kWitnessAuthFailed ? Error::kWitnessMismatch : reading.error();
  }
  if (reading->nv_index != record.nv_index || reading->name != record.counter_name) return Error::kWitnessMismatch;
  return reading;
}

}  // namespace

Error release(const WitnessRecord& record, const KeyId& key_id, const StateOptions& options,
              const std::string& path) noexcept {
  if (record.kind == WitnessKind::kEtcd) return etcd::leave(options.witness_config, key_id, record.fleet);
  if (record.kind != WitnessKind::kTpm || record.nv_index == 0) return Error::kOk;
  // The binding first: a counter another key defined at the freed handle (a second retire, a
  // cleanup script) is never undefined for this one.
  auto counter = identify(record, key_id, options, path);
  if (!counter) return counter.error();
  return tpm::undefine_counter(options.witness_config, *counter);
}

bool needs_rebinding(const format::Slot& slot, const WitnessStatus& status) noexcept {
  return slot.witnessed() && slot.witness.kind == WitnessKind::kTpm &&
         (!slot.witness.tpm_policy || status.read_as_owner);
}

Result<WitnessRecord> rebind(const format::Slot& slot, const std::string& path, const StateOptions& options) noexcept {
  // The old binding is identified before anything changes: the new binding may create the
  // directory's secret, whose authorization the old counter (read as owner) would refuse.
  auto old = identify(slot.witness, slot.key_id, options, path);
  if (!old && old.error() != Error::kWitnessMissing) return old.error();
  auto fresh = bind(WitnessKind::kTpm, slot, path, options);
  if (!fresh) return fresh.error();
  if (old) {
    const Error e = tpm::undefine_counter(options.witness_config, *old);
    if (e != Error::kOk && e != Error::kWitnessMissing) {
      (void)release(*fresh, slot.key_id, options, path);
      return e;
    }
  }
  return fresh;
}

Result<std::uint64_t> high_water(const format::Slot& slot, const StateOptions& options, WitnessStatus& status,
                                 const std::string& path, bool owner_fallback) noexcept {
  status.record = slot.witness;
  if (slot.witness_required()) {
    status.state = WitnessState::kRequired;
    return Error::kWitnessRequired;
  }
  if (!slot.witnessed()) {
    status.state = WitnessState::kNone;
    return Error::kOk;
  }
  if (slot.witness.kind == WitnessKind::kEtcd) {
    const Error e = etcd::read(options.witness_config, slot.key_id, slot.witness.fleet, slot.next, status);
    switch (e) {
      case Error::kOk: break;
      case Error::kWitnessMissing: status.state = WitnessState::kMissing; return e;
      case Error::kWitnessUnreachable: status.state = WitnessState::kUnreachable; return e;
      case Error::kWitnessModuleMissing: status.state = WitnessState::kNoModule; return e;
      case Error::kWitnessRecreated:
      case Error::kWitnessOtherCluster:
      case Error::kWitnessMismatch: status.state = WitnessState::kDifferent; return e;
      case Error::kWitnessWentBackwards:
      case Error::kWitnessOlderRevision: status.state = WitnessState::kBehind; return e;
      default: status.state = WitnessState::kRefused; return e;
    }
    // The record is never behind the file (read() refuses that); ahead means the next reservation skips.
    if (status.high_water == slot.next) {
      status.state = WitnessState::kAgrees;
    } else {
      status.state = WitnessState::kSkips;
      status.difference = status.high_water - slot.next;
    }
    return status.high_water;
  }
  std::string message;
  std::optional<tpm::CounterAuth> auth;
  if (!path.empty()) {
    auto a = auth_of(slot, path, false);
    if (a) {
      auth = *a;
    } else if (!owner_fallback || (a.error() != Error::kWitnessSecretMissing && a.error() != Error::kWitnessSecretInsecure)) {
      status.state = WitnessState::kRefused;
      return a.error();
    }
  }
  if (!auth && !owner_fallback) {
    status.state = WitnessState::kRefused;
    return Error::kWitnessSecretMissing;
  }
  status.read_as_owner = !auth;
  auto reading = tpm::read_counter(options.witness_config, slot.witness.nv_index, auth ? &*auth : nullptr, &message);
  try { status.message = message; } catch (...) {}
  if (!reading) {
    switch (reading.error()) {
      case Error::kWitnessMissing: status.state = WitnessState::kMissing; break;
      case Error::kWitnessMismatch: status.state = WitnessState::kDifferent; break;
      case Error::kWitnessUnreachable: status.state = WitnessState::kUnreachable; break;
      case Error::kWitnessModuleMissing: status.state = WitnessState::kNoModule; break;
      // The binding's own authorization refused: a counter of another key or directory took the handle.
      case Error::kWitnessAuthFailed: status.state = WitnessState::kDifferent; return Error::kWitnessMismatch;
      default: status.state = WitnessState::kRefused; break;
    }
    return reading.error();
  }
  auto hw = high_water_of(slot, *reading);
  if (!hw) {
    status.state = WitnessState::kDifferent;
    return hw.error();
  }
  status.high_water = *hw;
  // A file without the counts (bound before them) cannot say: assume the TPM may have restarted.
  status.tpm_restarted = !slot.witness.tpm_policy || reading->reset_count != slot.witness.tpm_reset_count ||
                         reading->restart_count != slot.witness.tpm_restart_count;
  if (*hw > slot.max_signatures) {
    status.state = WitnessState::kDifferent;
    return Error::kWitnessMismatch;
  }
  if (*hw == slot.next) {
    status.state = WitnessState::kAgrees;
  } else if (*hw < slot.next) {
    status.state = WitnessState::kPending;
    status.difference = slot.next - *hw;
    // Further behind than the last write explains: not this file's history (settle refuses it).
    if (slot.witness.tpm_policy && status.difference > slot.witness.last_reservation) {
      status.state = WitnessState::kDifferent;
      return Error::kWitnessMismatch;
    }
  } else {
    status.state = WitnessState::kBehind;
    status.difference = *hw - slot.next;
  }
  return *hw;
}

Error check_at_open(const format::Slot& slot, const std::string& path, const StateOptions& options) noexcept {
  if (!slot.witnessed() && !slot.witness_required()) return Error::kOk;
  // A fleet file's every reservation asks the cluster: no round trip at open (docs/fleet.md "Cost").
  if (slot.witnessed() && slot.witness.kind == WitnessKind::kEtcd) return Error::kOk;
  WitnessStatus status;
  auto hw = high_water(slot, options, status, path, /*owner_fallback=*/false);
  if (!hw) return hw.error();
  return status.state == WitnessState::kBehind ? Error::kStateBehindWitness : Error::kOk;
}

Result<etcd::Grant> reserve_from_fleet(const format::Slot& slot, std::uint64_t want, const StateOptions& options) noexcept {
  if (!slot.witnessed() || slot.witness.kind != WitnessKind::kEtcd) return Error::kInternal;
  return etcd::reserve(options.witness_config, slot.key_id, slot.max_signatures, slot.witness.fleet, slot.next, want,
                       slot.acknowledgement_gate());
}

void describe(const format::Slot& slot, const StateOptions& options, StateInfo& info, const std::string& path) noexcept {
  (void)high_water(slot, options, info.witness, path);
}

}  // namespace klms::state::witness
