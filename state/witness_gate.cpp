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

Error settle(const format::Slot& slot, const std::string& path, const StateOptions& options) noexcept {
  if (slot.witness_required()) return Error::kWitnessRequired;
  if (!slot.witnessed()) return Error::kOk;
  // A fleet file reserves through reserve_from_fleet, which commits in etcd before the file write.
  if (slot.witness.kind == WitnessKind::kEtcd) return Error::kOk;
  if (slot.witness.kind != WitnessKind::kTpm) return Error::kWitnessUnsupported;
  auto auth = auth_of(slot, path, false);
  if (!auth) return auth.error();
  auto reading = tpm::read_counter(options.witness_config, slot.witness.nv_index, &*auth);
  if (!reading) return reading.error();
  auto hw = high_water_of(slot, *reading);
  if (!hw) return hw.error();
  if (*hw == slot.next) return Error::kOk;
  // Beyond the key's maximum is no high-water mark of this file: another writer, or another base.
  if (*hw > slot.max_signatures) return Error::kWitnessMismatch;
  if (*hw > slot.next) return Error::kStateBehindWitness;
  // hw < next: the last write's increments did not all happen; none of its indices left.
  auto done = tpm::increment_counter(options.witness_config, slot.witness.nv_index, *auth, slot.next - *hw);
  if (!done) return done.error();
  auto after = high_water_of(slot, *done);
  if (!after) return after.error();
  return *after == slot.next ? Error::kOk : Error::kWitnessMismatch;
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
  WitnessRecord record;
  record.kind = WitnessKind::kTpm;
  record.nv_index = reading->nv_index;
  record.base = reading->value - next;  // so that value - base == next
  record.counter_name = reading->name;
  return record;
}

Error release(const WitnessRecord& record, const KeyId& key_id, const StateOptions& options) noexcept {
  if (record.kind == WitnessKind::kEtcd) return etcd::leave(options.witness_config, key_id, record.fleet);
  if (record.kind != WitnessKind::kTpm || record.nv_index == 0) return Error::kOk;
  return tpm::undefine_counter(options.witness_config, record.nv_index);
}

Result<std::uint64_t> high_water(const format::Slot& slot, const StateOptions& options, WitnessStatus& status,
                                 const std::string& path) noexcept {
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
    if (!a) {
      status.state = WitnessState::kRefused;
      return a.error();
    }
    auth = *a;
  }
  auto reading = tpm::read_counter(options.witness_config, slot.witness.nv_index, auth ? &*auth : nullptr, &message);
  try { status.message = message; } catch (...) {}
  if (!reading) {
    switch (reading.error()) {
      case Error::kWitnessMissing: status.state = WitnessState::kMissing; break;
      case Error::kWitnessMismatch: status.state = WitnessState::kDifferent; break;
      case Error::kWitnessUnreachable: status.state = WitnessState::kUnreachable; break;
      case Error::kWitnessModuleMissing: status.state = WitnessState::kNoModule; break;
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
  if (*hw > slot.max_signatures) {
    status.state = WitnessState::kDifferent;
    return Error::kWitnessMismatch;
  }
  if (*hw == slot.next) {
    status.state = WitnessState::kAgrees;
  } else if (*hw < slot.next) {
    status.state = WitnessState::kPending;
    status.difference = slot.next - *hw;
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
  auto hw = high_water(slot, options, status, path);
  if (!hw) return hw.error();
  return status.state == WitnessState::kBehind ? Error::kStateBehindWitness : Error::kOk;
}

Result<etcd::Grant> reserve_from_fleet(const format::Slot& slot, std::uint64_t want, const StateOptions& options) noexcept {
  if (!slot.witnessed() || slot.witness.kind != WitnessKind::kEtcd) return Error::kInternal;
  return etcd::reserve(options.witness_config, slot.key_id, slot.max_signatures, slot.witness.fleet, slot.next, want);
}

void describe(const format::Slot& slot, const StateOptions& options, StateInfo& info) noexcept {
  (void)high_water(slot, options, info.witness);
}

}  // namespace klms::state::witness
