// Recovery with a witness, retirement, backup and restore (docs/state.md "The witness",
// docs/backup.md): the writes that move a state file to where its history says it must be.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>

#include "state/store.h"
#include "state/store_internal.h"
#include "state/witness_etcd.h"
#include "state/witness_gate.h"

namespace klms::state {
namespace {

template <typename T>
std::uint64_t to_u64(T v) noexcept { return static_cast<std::uint64_t>(v); }

// The current slot of a file opened for an administrative write, checked as signing checks it
// (same inode as recorded, not copied).
struct Opened {
  fs::OpenedFile file;
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
};

Result<Opened> open_for_write(const std::string& path, const StateOptions& options) noexcept {
  auto opened = fs::open_checked_state_file(path, options);
  if (!opened) return opened.error();
  Opened o{std::move(*opened), 0, 0};
  o.device = to_u64(o.file.st.st_dev);
  o.inode = to_u64(o.file.st.st_ino);
  return o;
}

Error check_same_inode(const format::Slot& slot, const Opened& o) noexcept {
  if (slot.device != o.device || slot.inode != o.inode) return Error::kStateCopied;
  const auto handle = fs::file_handle_digest(o.file.fd.get());
  if (!format::same_file_handle(slot.file_handle, handle ? &*handle : nullptr)) return Error::kStateCopied;
  return Error::kOk;
}

StateInfo info_of(const format::Slot& slot, const Opened& o, const StateOptions& options,
                  const std::string& path) noexcept {
  const auto handle = fs::file_handle_digest(o.file.fd.get());
  format::Slot written = slot;
  written.version = format::kFormatVersion;
  StateInfo info = format::make_info(written, o.device, o.inode, handle ? &*handle : nullptr);
  witness::describe(written, options, info, path);
  return info;
}

// A fleet host after its cluster was restored from a snapshot (docs/fleet.md "Disaster restore"):
// the cluster's counter and this host's record move past everything this file ever held, and the
// file lands there, accepting the cluster's revision.
Result<StateInfo> resync_fleet(const Opened& o, const format::Current& current, const StateOptions& options,
                               const std::string& path, std::uint64_t* skipped) noexcept {
  const format::Slot& slot = current.slot;
  if (slot.generation == std::numeric_limits<std::uint64_t>::max()) return Error::kIndexOverflow;
  auto binding = etcd::resync(options.witness_config, slot.key_id, slot.max_signatures, slot.witness.fleet, slot.next,
                              options.fleet_counter_at_least);
  if (!binding) return binding.error();
  if (binding->block_end < slot.next || binding->block_end > slot.max_signatures) return Error::kWitnessMismatch;
  format::Slot updated = slot;
  updated.generation = slot.generation + 1;
  updated.next = binding->block_end;
  updated.witness.fleet = *binding;
  updated.reserving_pid = static_cast<std::uint32_t>(::getpid());
  if (Error e = io::write_slot_durably(o.file.fd.get(), current, updated); e != Error::kOk) return e;
  if (skipped != nullptr) *skipped = updated.next - slot.next;
  return info_of(updated, o, options, path);
}

}  // namespace

Result<StateInfo> resync_state_file(const std::string& path, const StateOptions& options,
                                    std::uint64_t* skipped) noexcept {
  if (skipped != nullptr) *skipped = 0;
  auto o = open_for_write(path, options);
  if (!o) return o.error();
  const detail::WriteLocks locks(o->file.fd.get(), o->device, o->inode);
  if (locks.error() != Error::kOk) return locks.error();
  auto current = io::read_current(o->file.fd.get());
  if (!current) return current.error();
  const format::Slot& slot = current->slot;
  if (!slot.witnessed()) return slot.witness_required() ? Error::kWitnessRequired : Error::kInvalidArgument;
  if (Error e = check_same_inode(slot, *o); e != Error::kOk) return e;
  if (slot.witness.kind == WitnessKind::kEtcd) return resync_fleet(*o, *current, options, path, skipped);
  WitnessStatus status;
  auto hw = witness::high_water(slot, options, status, path);
  if (!hw) return hw.error();
  // The operator's mark (--counter-at-least, --after-signature): nothing at or beyond it was used.
  const std::uint64_t mark = std::min(options.fleet_counter_at_least, slot.max_signatures);
  // Behind, and the TPM reset or restarted since this file's last write: the gap may be a virtual
  // TPM rolled back with its VM snapshot, whose counter is then no high-water mark at all (the
  // discarded timeline went beyond it). Only a mark from outside, or the operator's word that this
  // TPM's state was never restored, lets resync land (docs/backup.md "Virtual TPMs").
  if (*hw > slot.next && status.tpm_restarted && mark == 0 && !options.tpm_not_rolled_back) {
    return Error::kStateBehindWitness;
  }
  const bool rebinding = witness::needs_rebinding(slot, status);
  const std::uint64_t target = std::max({*hw, slot.next, mark});
  if (!rebinding && target == slot.next) {
    // Agrees, or increments pending: completing them is what the next signature would do.
    if (Error e = witness::settle(slot, path, options); e != Error::kOk) return e;
    return info_of(slot, *o, options, path);
  }
  if (slot.generation == std::numeric_limits<std::uint64_t>::max()) return Error::kIndexOverflow;
  format::Slot updated = slot;
  updated.generation = slot.generation + 1;
  updated.next = target;  // <= max: high_water refuses a mark beyond the key, the mark is clamped
  updated.reserving_pid = static_cast<std::uint32_t>(::getpid());
  if (rebinding) {
    // Bound before per-binding policies, or the secret is gone: a counter of its own at `target`,
    // the old one released before the file names the new one (docs/state.md "One binding, one name").
    if (Error e = check_witness_budget(WitnessKind::kTpm, slot.max_signatures, options.witness_config); e != Error::kOk) {
      return e;
    }
    auto record = witness::rebind(updated, path, options);
    if (!record) return record.error();
    updated.witness = *record;
  } else if (target > *hw) {
    witness::record_write(updated, target - *hw, {});
  }
  if (Error e = io::write_slot_durably(o->file.fd.get(), *current, updated); e != Error::kOk) return e;
  if (!rebinding && target > *hw) {
    if (Error e = witness::advance(updated, target - *hw, path, options); e != Error::kOk) return e;
  }
  if (skipped != nullptr) *skipped = target - slot.next;
  return info_of(updated, *o, options, path);
}

Result<StateInfo> retire_state_file(const std::string& path, const StateOptions& options, Error* released) noexcept {
  if (released != nullptr) *released = Error::kOk;
  auto o = open_for_write(path, options);
  if (!o) return o.error();
  format::Slot updated;
  {
    const detail::WriteLocks locks(o->file.fd.get(), o->device, o->inode);
    if (locks.error() != Error::kOk) return locks.error();
    auto current = io::read_current(o->file.fd.get());
    if (!current) return current.error();
    const format::Slot& slot = current->slot;
    if (Error e = check_same_inode(slot, *o); e != Error::kOk) return e;
    if (slot.generation == std::numeric_limits<std::uint64_t>::max()) return Error::kIndexOverflow;
    updated = slot;
    updated.generation = slot.generation + 1;
    updated.next = slot.max_signatures;
    if (updated.witness.kind == WitnessKind::kEtcd) updated.witness.fleet.block_end = slot.max_signatures;
    updated.reserving_pid = static_cast<std::uint32_t>(::getpid());
    if (Error e = io::write_slot_durably(o->file.fd.get(), *current, updated); e != Error::kOk) return e;
  }
  // Exhausted first, released after: a restored copy of the file then finds no counter and is
  // refused. Released only while it is still this binding's: run twice, retire never undefines the
  // counter another key got at the freed handle (kWitnessMismatch: left alone).
  if (updated.witnessed()) {
    const Error e = witness::release(updated.witness, updated.key_id, options, path);
    if (released != nullptr) *released = e;
    if (e != Error::kOk && e != Error::kWitnessMissing && e != Error::kWitnessMismatch &&
        e != Error::kWitnessSecretMissing) {
      return e;
    }
  }
  StateInfo info = info_of(updated, *o, options, path);
  return info;
}

Error backup_state_file(const std::string& path, const std::string& out) noexcept {
  auto info = read_state_file(path);  // refuses what signing refuses about the format
  if (!info) return info.error();
  io::UniqueFd in(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY));
  if (!in.valid()) return fs::error_from_open_errno(errno);
  auto lock = io::OfdLock::acquire(in.get(), /*exclusive=*/false);
  if (!lock) return lock.error();
  format::FileImage image;
  std::uint64_t size = 0;
  if (Error e = io::read_image(in.get(), image, size); e != Error::kOk) return e;
  if (auto current = format::select_current(image, size); !current) return current.error();
  io::UniqueFd copy(::open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, S_IRUSR | S_IWUSR));
  if (!copy.valid()) return errno == EEXIST ? Error::kStateExists : fs::error_from_open_errno(errno);
  if (Error e = io::write_image_durably(copy.get(), image); e != Error::kOk) {
    ::unlink(out.c_str());
    return e;
  }
  return Error::kOk;
}

Result<StateInfo> restore_state_file(const std::string& backup, const std::string& path,
                                     std::optional<std::uint64_t> high_water, const StateOptions& options) noexcept {
  if (Error e = check_state_path(path); e != Error::kOk) return e;
  // The record: read like a display read (any file name, any inode), refused where signing refuses.
  io::UniqueFd in(::open(backup.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY));
  if (!in.valid()) return fs::error_from_open_errno(errno);
  auto current = io::read_current(in.get());
  if (!current) return current.error();
  const format::Slot& record = current->slot;

  format::Slot restored = record;
  restored.next = record.next;
  bool counter_here = false;
  std::uint64_t witnessed_hw = 0;
  if (record.witnessed()) {
    // Read with the binding's own authorization when the new file's directory has the secret
    // (docs/backup.md: it is restored with the record), else with the owner's.
    WitnessStatus status;
    auto hw = witness::high_water(record, options, status, path);
    if (hw) {
      counter_here = true;
      witnessed_hw = *hw;
      restored.next = std::max(restored.next, *hw);
    } else if (hw.error() == Error::kWitnessMissing || hw.error() == Error::kWitnessMismatch) {
      // Another host (or a released counter): only the user's high-water mark can say how far it went.
      if (!high_water) return hw.error();
      restored.flags = (restored.flags & ~format::kFlagWitness) | format::kFlagWitnessRequired;
      restored.witness = required_record(record.witness.kind);
    } else {
      return hw.error();
    }
  } else if (!high_water && !record.witness_required()) {
    return Error::kInvalidArgument;  // unwitnessed: the record alone may be behind (docs/backup.md)
  } else if (!high_water) {
    return Error::kWitnessMissing;
  }
  if (high_water) restored.next = std::max(restored.next, std::min(*high_water, record.max_signatures));

  fs::PathParts parts;
  StateOptions create_options = options;
  if (restored.witnessed() || restored.witness_required()) create_options.witness = restored.witness.kind;
  auto dir = detail::open_new_file_directory(path, create_options, parts);
  if (!dir) return dir.error();
  if (Error e = fs::check_name_fits(dir->get(), parts.name); e != Error::kOk) return e;
  if (counter_here && restored.next > witnessed_hw) witness::record_write(restored, restored.next - witnessed_hw, {});
  if (Error e = detail::create_in(dir->get(), parts.name, restored); e != Error::kOk) return e;
  // A mark beyond the witnessed one moves the witness too, before the file can sign.
  if (counter_here && restored.next > witnessed_hw) {
    if (Error e = witness::advance(restored, restored.next - witnessed_hw, path, options); e != Error::kOk) return e;
  }
  return read_state_file(path, options);
}

}  // namespace klms::state
