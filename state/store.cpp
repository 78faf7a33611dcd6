// The state-file operations that are not a handle's: creation at key generation, the display read,
// and adoption after a deliberate move (docs/state.md §3, §4).
#include "state/store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <limits>
#include <mutex>
#include <optional>
#include <new>

#include "state/file_format.h"
#include "state/fs_checks.h"
#include "state/io.h"
#include "state/registry.h"
#include "state/store_internal.h"
#include "state/witness_etcd.h"
#include "state/witness_gate.h"

namespace klms::state {
namespace {

template <typename T>
std::uint64_t to_u64(T v) noexcept { return static_cast<std::uint64_t>(v); }  // dev_t, ino_t

}  // namespace

namespace detail {


// Creates `name` in `dir_fd` exclusively holding `proto` (its device, inode, file handle, instance
// id and generation filled in here), both blocks, fsync'd with the directory.
Error create_in(int dir_fd, const std::string& name, const format::Slot& proto) noexcept {
  // O_EXCL: never overwrite; O_NOFOLLOW: with O_EXCL a symbolic link at the name is EEXIST anyway.
  io::UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                                 S_IRUSR | S_IWUSR));
  if (!fd.valid()) {
    const int err = errno;
    if (err == EEXIST) return Error::kStateExists;
    if (err == ENOMEM) return Error::kOutOfMemory;
    if (err == EROFS) return Error::kStateReadOnlyFs;
    if (err == EACCES || err == EPERM) return Error::kStatePermissionDenied;
    if (err == ENOENT) return Error::kStateMissing;
    record_state_write_errno(err);
    return Error::kStateWriteFailed;
  }
  // From here on a failure removes the half-made file, so that key generation can be retried.
  Error result = [&]() noexcept {
    struct stat st {};
    if (::fchmod(fd.get(), S_IRUSR | S_IWUSR) != 0 || ::fstat(fd.get(), &st) != 0) {
      record_state_write_errno(errno);
      return Error::kStateWriteFailed;
    }
    format::Slot slot = proto;
    slot.version = format::kFormatVersion;
    slot.generation = 1;
    slot.device = to_u64(st.st_dev);
    slot.inode = to_u64(st.st_ino);
    slot.reserving_pid = 0;
    if (auto handle = fs::file_handle_digest(fd.get())) slot.file_handle = *handle;
    if (Error e = io::fill_random(slot.instance_id.data(), slot.instance_id.size()); e != Error::kOk) return e;
    // Both blocks hold the same slot, as after every complete write (state/file_format.h).
    format::FileImage image;
    format::Block block;
    format::encode_slot(slot, block);
    std::copy(block.begin(), block.end(), image.begin());
    std::copy(block.begin(), block.end(), image.begin() + format::kBlockBytes);
    if (Error e = io::write_image_durably(fd.get(), image); e != Error::kOk) return e;
    // The directory entry too: a file that vanishes after a power loss would be "missing".
    if (::fsync(dir_fd) != 0) {
      record_state_write_errno(errno);
      return Error::kStateWriteFailed;
    }
    return Error::kOk;
  }();
  if (result != Error::kOk) ::unlinkat(dir_fd, name.c_str(), 0);
  return result;
}

// Adoption gives a file a new instance and perhaps a later next index, nothing else: a lease stays
// a lease of the same range, a key's file stays one (docs/state.md "Index leases").
bool keeps_kind_and_range(const format::Slot& before, const format::Slot& after) noexcept {
  // The witness bits may change (a binding); the lease bit and its record never do.
  return before.key_id == after.key_id && (before.flags & format::kFlagLease) == (after.flags & format::kFlagLease) &&
         before.max_signatures == after.max_signatures && before.lease_start == after.lease_start &&
         before.lease_end == after.lease_end && before.parent_instance_id == after.parent_instance_id &&
         before.lease_depth == after.lease_depth;
}

// The directory a new state file goes into, checked; its name in parts.
Result<io::UniqueFd> open_new_file_directory(const std::string& path, const StateOptions& options,
                                                   fs::PathParts& parts) noexcept {
  auto split = fs::split_path(path);
  if (!split) return split.error();
  parts = std::move(*split);
  auto dir = fs::open_checked_directory(parts.directory);
  if (!dir) return dir.error() == Error::kStateMissing ? Error::kStateDirectoryMissing : dir.error();
  if (Error e = fs::check_file_system(dir->get(), options); e != Error::kOk) return e;
  // The directory's file system is the new file's: safe without handles only for a witnessed one (§18).
  if (Error e = fs::check_file_handles(dir->get(), options, options.witness != WitnessKind::kNone); e != Error::kOk) {
    return e;
  }
  return dir;
}

}  // namespace detail

using detail::WriteLocks;
using detail::create_in;
using detail::open_new_file_directory;
using detail::keeps_kind_and_range;

Error check_state_path(const std::string& path) noexcept {
  if (path.empty() || path.front() != '/') return Error::kStatePathInvalid;
  auto parts = fs::split_path(path);
  if (!parts) return parts.error();
  if (path.size() + kStateNameReserve >= PATH_MAX) return Error::kStateNameTooLong;
  return fs::check_name_fits(-1, parts->name);
}

Error check_state_file_creatable(const std::string& path, const StateOptions& options) noexcept {
  if (Error e = check_state_path(path); e != Error::kOk) return e;
  fs::PathParts parts;
  auto dir = open_new_file_directory(path, options, parts);
  if (!dir) return dir.error();
  if (Error e = fs::check_name_fits(dir->get(), parts.name); e != Error::kOk) return e;
  if (fs::is_tree_cache_name(parts.name)) return Error::kStateNameIsCache;
  struct stat st {};
  if (::fstatat(dir->get(), parts.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return Error::kStateExists;
  return errno == ENOENT ? Error::kOk : Error::kStateUnreadable;
}

Error check_witness_ready(const StateOptions& options, std::uint64_t max_signatures) noexcept {
  if (options.witness == WitnessKind::kNone) return Error::kOk;
  if (Error e = check_witness_budget(options.witness, max_signatures, options.witness_config); e != Error::kOk) return e;
  if (options.witness == WitnessKind::kEtcd) return etcd::probe(options.witness_config);
  return tpm::probe(options.witness_config);
}

Error create_state_file(const std::string& path, const KeyId& key_id, std::uint64_t max_signatures,
                        const StateOptions& options, const LevelsDigest* levels) noexcept {
  if (max_signatures == 0) return Error::kInvalidArgument;
  fs::PathParts parts;
  auto dir = open_new_file_directory(path, options, parts);
  if (!dir) return dir.error();
  if (Error e = fs::check_name_fits(dir->get(), parts.name); e != Error::kOk) return e;
  if (fs::is_tree_cache_name(parts.name)) return Error::kStateNameIsCache;
  format::Slot slot;
  slot.next = 0;
  slot.max_signatures = max_signatures;
  slot.key_id = key_id;
  if (levels != nullptr) slot.levels_digest = *levels;
  slot.record_low_signatures_warning(options.low_signatures_warning);
  if (options.witness == WitnessKind::kNone) return create_in(dir->get(), parts.name, slot);
  // A witnessed key: its counter first (docs/state.md "The witness"), released again when the file
  // cannot be made.
  if (Error e = check_witness_budget(options.witness, max_signatures, options.witness_config); e != Error::kOk) return e;
  auto record = witness::bind(options.witness, slot, path, options);
  if (!record) return record.error();
  slot.flags |= format::kFlagWitness;
  slot.witness = *record;
  const Error made = create_in(dir->get(), parts.name, slot);
  if (made != Error::kOk) (void)witness::release(*record, key_id, options, path);
  return made;
}

Result<StateInfo> join_state_file(const std::string& path, const KeyId& key_id, const StateOptions& options) noexcept {
  StateOptions fleet = options;
  fleet.witness = WitnessKind::kEtcd;  // a witnessed file: safe where file handles are missing (§18)
  fs::PathParts parts;
  auto dir = open_new_file_directory(path, fleet, parts);
  if (!dir) return dir.error();
  if (Error e = fs::check_name_fits(dir->get(), parts.name); e != Error::kOk) return e;
  if (fs::is_tree_cache_name(parts.name)) return Error::kStateNameIsCache;
  etcd::KeyDescription key;
  // The host record first: a crash before the file exists leaves an unused record, never a file
  // without one.
  auto binding = etcd::join(fleet.witness_config, key_id, key);
  if (!binding) return binding.error();
  if (key.max_signatures == 0) {
    (void)etcd::leave(fleet.witness_config, key_id, *binding);
    return Error::kWitnessMismatch;
  }
  format::Slot slot;
  slot.next = 0;
  slot.max_signatures = key.max_signatures;
  slot.key_id = key_id;
  slot.levels_digest = key.levels_digest;
  slot.flags |= format::kFlagWitness;
  slot.witness.kind = WitnessKind::kEtcd;
  slot.witness.fleet = *binding;
  if (Error made = create_in(dir->get(), parts.name, slot); made != Error::kOk) {
    (void)etcd::leave(fleet.witness_config, key_id, *binding);
    return made;
  }
  return read_state_file(path, fleet);
}

// The file opened for reading only, as a display needs it (no write permission needed).
Result<std::pair<io::UniqueFd, struct stat>> open_for_display(const std::string& path) noexcept {
  if (path.empty()) return Error::kStatePathInvalid;
  io::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) return fs::error_from_open_errno(errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error::kStateUnreadable;
  if (!S_ISREG(st.st_mode)) return Error::kStateInsecureFile;
  return std::pair<io::UniqueFd, struct stat>(std::move(fd), st);
}

Result<StateInfo> inspect_state_file(const std::string& path) noexcept { return inspect_state_file(path, StateOptions{}); }

Result<StateInfo> inspect_state_file(const std::string& path, const StateOptions& options) noexcept {
  auto opened = open_for_display(path);
  if (!opened) return opened.error();
  const int fd = opened->first.get();
  const struct stat& st = opened->second;
  auto lock = io::OfdLock::acquire(fd, /*exclusive=*/false);
  if (!lock) return lock.error();
  auto recovered = io::read_for_recovery(fd);
  if (!recovered) return recovered.error();
  const auto handle = fs::file_handle_digest(fd);
  StateInfo info = format::make_info(recovered->current.slot, to_u64(st.st_dev), to_u64(st.st_ino),
                                           handle ? &*handle : nullptr);
  info.refused = recovered->refused;
  witness::describe(recovered->current.slot, options, info, path);
  // Shown, but said to be refused: every open for signing or administration refuses it (§3).
  if (info.refused == Error::kOk) info.refused = fs::check_not_readable_by_others(st);
  return info;
}

// The strict read is the inspection, refused where signing refuses (select_for_recovery gives
// select_current's slot whenever select_current accepts the file).
Result<StateInfo> read_state_file(const std::string& path) noexcept { return read_state_file(path, StateOptions{}); }

Result<StateInfo> read_state_file(const std::string& path, const StateOptions& options) noexcept {
  auto info = inspect_state_file(path, options);
  if (!info) return info.error();
  if (info->refused != Error::kOk) return info->refused;
  return info;
}

Result<StateInfo> adopt_state_file(const std::string& path, const AdoptOptions& options) noexcept {
  StateOptions open_options;
  open_options.allow_network_fs = options.allow_network_fs;
  open_options.witness_config = options.witness_config;
  open_options.allow_no_file_handles = options.allow_no_file_handles;
  auto opened = fs::open_checked_state_file(path, open_options);
  if (!opened) return opened.error();
  const std::uint64_t device = to_u64(opened->st.st_dev);
  const std::uint64_t inode = to_u64(opened->st.st_ino);
  const int fd = opened->fd.get();

  const WriteLocks locks(fd, device, inode);
  if (locks.error() != Error::kOk) return locks.error();
  auto recovered = io::read_for_recovery(fd);
  if (!recovered) return recovered.error();
  // A refused file's newest slot may be lost: only an advance the user chose can cover it, and an
  // advance of 0 covers nothing.
  if (recovered->refused != Error::kOk && (!options.advance_given || options.advance == 0)) {
    return recovered->refused;
  }
  const format::Current* current = &recovered->current;
  const format::Slot& slot = current->slot;
  if (options.expected_key && *options.expected_key != slot.key_id) return Error::kStateForeign;
  if (options.levels && slot.levels_digest != LevelsDigest{} && slot.levels_digest != *options.levels) {
    return Error::kStateParamsMismatch;
  }
  if (slot.generation == std::numeric_limits<std::uint64_t>::max()) return Error::kIndexOverflow;

  format::Slot adopted = slot;
  adopted.generation = slot.generation + 1;
  adopted.device = device;
  adopted.inode = inode;
  // Never backwards; past the maximum means exhausted, not wrapped.
  adopted.next = options.advance >= slot.max_signatures - slot.next ? slot.max_signatures : slot.next + options.advance;
  // The witness (docs/state.md "The witness", "Adoption"): a file its counter says is behind lands
  // past it; a counter that is gone (another host) leaves only the advance the user chose.
  bool counter_read = false;      // the file's counter answered with its high-water mark
  std::uint64_t witnessed_hw = 0;
  bool rebinding = false;
  if (slot.witnessed()) {
    WitnessStatus status;
    auto hw = witness::high_water(slot, open_options, status, path);
    if (hw) {
      counter_read = true;
      witnessed_hw = *hw;
      if (*hw > adopted.next) adopted.next = *hw;
      // Bound before per-binding policies, or its secret gone: a counter of its own replaces it
      // (docs/state.md "One binding, one name").
      rebinding = witness::needs_rebinding(slot, status);
    } else if ((hw.error() == Error::kWitnessMissing || hw.error() == Error::kWitnessMismatch) &&
               slot.witness.kind == WitnessKind::kTpm) {
      if (!options.advance_given) return hw.error();
      adopted.flags = (adopted.flags & ~format::kFlagWitness) | format::kFlagWitnessRequired;
      adopted.witness = required_record(slot.witness.kind);
    } else {
      return hw.error();  // unreachable: nothing is decided without it
    }
  }
  // A fleet host's file never passes its block: the host's record in etcd decides what comes next.
  if (slot.witnessed() && slot.witness.kind == WitnessKind::kEtcd) {
    adopted.next = std::min(adopted.next, slot.witness.fleet.block_end);
  }
  std::optional<WitnessRecord> bound;
  if (rebinding) {
    if (Error e = check_witness_budget(WitnessKind::kTpm, slot.max_signatures, options.witness_config); e != Error::kOk) {
      return e;
    }
    // The old counter goes before the file names the new one: no copy bound to it signs again.
    auto record = witness::rebind(adopted, path, open_options);
    if (!record) return record.error();
    bound = *record;
    adopted.witness = *record;
    counter_read = false;  // the new counter is at adopted.next already
  } else if (options.bind_witness != WitnessKind::kNone && !counter_read) {
    if (Error e = check_witness_budget(options.bind_witness, slot.max_signatures, options.witness_config);
        e != Error::kOk) {
      return e;
    }
    auto record = witness::bind(options.bind_witness, adopted, path, open_options);
    if (!record) return record.error();
    bound = *record;
    adopted.flags = (adopted.flags & ~format::kFlagWitnessRequired) | format::kFlagWitness;
    adopted.witness = *record;
  } else if (slot.witness_required() && options.bind_witness == WitnessKind::kNone) {
    return Error::kWitnessRequired;  // a required witness is bound by adopt --witness, never dropped
  }
  adopted.reserving_pid = static_cast<std::uint32_t>(::getpid());
  if (options.levels) adopted.levels_digest = *options.levels;
  const auto handle = fs::file_handle_digest(fd);
  adopted.file_handle = handle ? *handle : FileHandleDigest{};
  if (Error e = io::fill_random(adopted.instance_id.data(), adopted.instance_id.size()); e != Error::kOk) {
    return e;
  }
  if (!keeps_kind_and_range(slot, adopted)) {
    if (bound) (void)witness::release(*bound, slot.key_id, open_options, path);
    return Error::kInternal;
  }
  // A chosen advance beyond the witnessed mark moves the witness too.
  const std::uint64_t witness_behind = counter_read && adopted.next > witnessed_hw ? adopted.next - witnessed_hw : 0;
  if (witness_behind != 0) witness::record_write(adopted, witness_behind, {});
  if (Error e = io::write_slot_durably(fd, *current, adopted); e != Error::kOk) {
    if (bound) (void)witness::release(*bound, slot.key_id, open_options, path);
    return e;
  }
  if (witness_behind != 0) {
    if (Error e = witness::advance(adopted, witness_behind, path, open_options); e != Error::kOk) return e;
  }
  adopted.version = format::kFormatVersion;
  StateInfo info = format::make_info(adopted, device, inode, handle ? &*handle : nullptr);
  witness::describe(adopted, open_options, info, path);
  return info;
}

Result<LeaseResult> lease_state_file(const std::string& parent_path, const std::string& lease_path,
                                     std::uint64_t count, const LeaseOptions& options) noexcept {
  if (options.range_lost != nullptr) *options.range_lost = false;
  if (count == 0) return Error::kInvalidArgument;
  StateOptions state_options;
  state_options.allow_network_fs = options.allow_network_fs;
  state_options.witness_config = options.witness_config;
  state_options.allow_no_file_handles = options.allow_no_file_handles;
  // Everything about the new file that can be checked without creating it, before the parent
  // gives up any index: a refusal here costs nothing.
  if (Error e = check_state_path(lease_path); e != Error::kOk) return e;
  if (Error e = check_state_file_creatable(lease_path, state_options); e != Error::kOk) return e;
  fs::PathParts parts;
  auto dir = open_new_file_directory(lease_path, state_options, parts);
  if (!dir) return dir.error();

  auto opened = fs::open_checked_state_file(parent_path, state_options);
  if (!opened) return opened.error();
  const int fd = opened->fd.get();
  const std::uint64_t device = to_u64(opened->st.st_dev);
  const std::uint64_t inode = to_u64(opened->st.st_ino);
  const auto handle = fs::file_handle_digest(fd);

  // Step 1: the parent's next index moves past the range, durably, under the locks of signing.
  format::Slot lease;
  StateInfo parent_after;
  {
    const WriteLocks locks(fd, device, inode);
    if (locks.error() != Error::kOk) return locks.error();
    auto current = io::read_current(fd);
    if (!current) return current.error();
    const format::Slot& slot = current->slot;
    // The parent is checked as signing checks it: a copy of a state file must not give out
    // indices as a lease any more than as signatures.
    struct stat st {};
    if (::fstat(fd, &st) != 0) return Error::kStateUnreadable;
    if (st.st_nlink == 0) return Error::kStateMissing;
    if (slot.device != device || slot.inode != inode) return Error::kStateCopied;
    if (!format::same_file_handle(slot.file_handle, handle ? &*handle : nullptr)) return Error::kStateCopied;
    // The lease binds the key's lower levels; a parent that does not know them yet cannot say.
    if (slot.levels_digest == LevelsDigest{}) return Error::kInvalidArgument;
    if (slot.next >= slot.max_signatures) return Error::kExhausted;
    if (count > slot.max_signatures - slot.next) return Error::kReserveTooLarge;
    // A lease cut into a key's last indices waits for the acknowledgement as signing does (§5).
    if (slot.awaits_acknowledgement(count)) return Error::kExhaustionNotAcknowledged;
    if (slot.generation == std::numeric_limits<std::uint64_t>::max()) return Error::kIndexOverflow;
    if (slot.is_lease() && slot.lease_depth == std::numeric_limits<std::uint32_t>::max()) return Error::kIndexOverflow;
    if (slot.witnessed() && slot.witness.kind == WitnessKind::kEtcd) return Error::kWitnessLeaseUnsupported;
    CounterReading seen;
    if (Error e = witness::settle(slot, parent_path, state_options, &seen); e != Error::kOk) return e;

    format::Slot updated = slot;
    updated.generation = slot.generation + 1;
    updated.next = slot.next + count;  // cannot pass max: checked above
    updated.reserving_pid = static_cast<std::uint32_t>(::getpid());
    witness::record_write(updated, count, seen);
    if (io::write_slot_durably(fd, *current, updated) != Error::kOk) return Error::kStateWriteFailed;
    // From here on the range [slot.next, updated.next) is consumed in the parent, whatever follows.
    if (options.range_lost != nullptr) *options.range_lost = true;
    // The parent's witness covers the range before any file can sign it (one increment per index).
    if (Error e = witness::advance(updated, count, parent_path, state_options); e != Error::kOk) return e;
    if (options.range_start != nullptr) *options.range_start = slot.next;
    updated.version = format::kFormatVersion;
    parent_after = format::make_info(updated, device, inode, handle ? &*handle : nullptr);

    lease.flags = format::kFlagLease;
    lease.next = slot.next;
    lease.max_signatures = updated.next;
    lease.key_id = slot.key_id;
    lease.levels_digest = slot.levels_digest;
    lease.lease_start = slot.next;
    lease.lease_end = updated.next;
    lease.parent_instance_id = slot.instance_id;
    lease.lease_depth = slot.is_lease() ? slot.lease_depth + 1 : 1;
    // The key's T goes with it (its warning); the acknowledgement does not: a lease is never gated.
    lease.flags |= slot.flags & format::kFlagThreshold;
    lease.threshold = slot.threshold;
    // A lease of a witnessed key needs a witness of its own, bound on the host that signs it.
    if (slot.witnessed() || slot.witness_required()) {
      lease.flags |= format::kFlagWitnessRequired;
      lease.witness = required_record(slot.witness.kind);
    }
  }

  // Step 2: the lease file, only now. Exclusive: an existing file at the name (made meanwhile)
  // is never overwritten, and the range is then simply lost.
  if (Error e = fs::check_name_fits(dir->get(), parts.name); e != Error::kOk) return e;
  if (fs::is_tree_cache_name(parts.name)) return Error::kStateNameIsCache;
  if (Error e = create_in(dir->get(), parts.name, lease); e != Error::kOk) return e;
  if (options.range_lost != nullptr) *options.range_lost = false;
  auto made = read_state_file(lease_path);
  if (!made) return made.error();  // created and durable; only the display read failed
  return LeaseResult{parent_after, *made};
}

Error adopt_state_file(const std::string& path, const KeyId& key_id) noexcept {
  AdoptOptions options;
  options.expected_key = key_id;
  auto adopted = adopt_state_file(path, options);
  return adopted ? Error::kOk : adopted.error();
}

Error discard_unused_state_file(const std::string& path, const StateOptions& options) noexcept {
  auto opened = fs::open_checked_state_file(path, options);
  if (!opened) return opened.error();
  const int fd = opened->fd.get();
  const WriteLocks locks(fd, to_u64(opened->st.st_dev), to_u64(opened->st.st_ino));
  if (locks.error() != Error::kOk) return locks.error();
  auto current = io::read_current(fd);
  if (!current) return current.error();
  // Never handed out an index: a key's file at 0, a lease at its range's start.
  const format::Slot& unused = current->slot;
  if (unused.next != (unused.is_lease() ? unused.lease_start : 0)) return Error::kStateExists;
  try {
    // The name must still be this inode: nobody renamed another file over it meanwhile.
    struct stat now {};
    if (::lstat(path.c_str(), &now) != 0 || now.st_dev != opened->st.st_dev || now.st_ino != opened->st.st_ino) {
      return Error::kStateCopied;
    }
    if (::unlink(path.c_str()) != 0) return fs::error_from_open_errno(errno);
    // Its caches (not secret, rebuilt when missing) go too; their absence is no error.
    ::unlink((path + ".cache").c_str());
    for (int level = 2; level <= 8; ++level) ::unlink((path + ".cache.level" + std::to_string(level)).c_str());
  } catch (...) {
    return Error::kOutOfMemory;
  }
  // Its counter goes last: a crash before leaves an unused counter, never a file without its witness.
  if (unused.witnessed()) {
    const Error e = witness::release(unused.witness, unused.key_id, options, path);
    // Gone, or another key's counter at the handle now: nothing of this file's to release.
    if (e != Error::kOk && e != Error::kWitnessMissing && e != Error::kWitnessMismatch) return e;
  }
  return Error::kOk;
}

}  // namespace klms::state
