// StateHandle: the one handle per state file and process (docs/state.md invariant 9), its
// reservations (8) and the read-modify-write that makes every index durable before it is handed
// out (1, 2, 6). Everything process-local here is tied to the process that made it
// (base/process_token.h): a fork or raw clone of this process never uses its reservation or lock.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <new>
#include <optional>

#include "base/path.h"
#include "base/process_token.h"
#include "state/fs_checks.h"
#include "state/io.h"
#include "state/registry.h"
#include "state/store.h"
#include "state/witness_gate.h"

namespace klms::state {

struct StateHandle::Impl {
  // The process that opened this handle, and its registry. In any other process (a fork or raw
  // clone of it) the handle refuses everything (kForeignProcess) before touching its mutex, which
  // may have been copied locked by a thread that does not exist there.
  std::uint64_t owner = process_token();
  registry::Registry* registry = nullptr;
  registry::FileEntry* entry = nullptr;  // set once registered; its mutex guards what follows
  std::string path;
  std::string reopen_path;  // absolute: a forked child may have changed directory
  StateOptions options;
  KeyId key_id{};
  InstanceId instance_id{};  // what the file said at open; a change means adopted or replaced
  std::uint64_t device = 0;  // of the inode we opened
  std::uint64_t inode = 0;
  std::optional<FileHandleDigest> file_handle;  // of the inode we opened, when the file system has handles
  std::optional<LevelsDigest> levels;  // what the key says; checked against (and bound into) the file
  bool levels_in_key_id = false;       // KeyBinding::params_in_key_id
  std::atomic<bool> poisoned{false};

  // Guarded by entry->mutex.
  io::UniqueFd fd;
  std::uint64_t fd_owner = 0;  // process_token() of the opener: a child must not lock through its parent's description
  std::uint64_t reserved_next = 0;  // [reserved_next, reserved_end) is durably consumed, not yet used
  std::uint64_t reserved_end = 0;
  std::uint64_t reservation_owner = 0;  // process_token() of the process that reserved them
  std::uint64_t last_generation = 0;  // highest seen: a lower one later means the file was rolled back
  std::uint64_t last_next = 0;

  Result<std::uint64_t> take_index(std::uint64_t batch) noexcept;
  Result<StateInfo> info_locked() noexcept;
  std::uint64_t reserved_unused_locked() const noexcept;
  Result<std::uint64_t> take_from_fleet(const format::Current& current, std::uint64_t batch) noexcept;

 private:
  Error use_own_descriptor() noexcept;
  Result<format::Current> read_checked() noexcept;

 public:
  // A descriptor another process opened is a number in that process's table, not ours: forget it
  // without closing (a CLONE_VM child's handle seen by its parent, or the reverse).
  void release_foreign_descriptor() noexcept {
    if (fd.valid() && fd_owner != process_token()) fd.release();
  }
};

namespace registry {
void forget_after_fork(StateHandle::Impl& handle) noexcept {
  handle.reserved_next = handle.reserved_end = 0;
  handle.reservation_owner = 0;
  handle.fd.reset();
  handle.fd_owner = 0;
}
}  // namespace registry

namespace {

template <typename T>
std::uint64_t to_u64(T v) noexcept { return static_cast<std::uint64_t>(v); }  // dev_t, ino_t

// Checks that apply to every read: the file belongs to this key (and its lower levels, once bound)
// and is the inode it was made on.
Error check_identity(const format::Slot& slot, const KeyId& key_id, const LevelsDigest* levels,
                     bool levels_in_key_id, const struct stat& st,
                     const std::optional<FileHandleDigest>& handle) noexcept {
  if (slot.key_id != key_id) return Error::kStateForeign;
  if (levels != nullptr) {
    const bool bound = slot.levels_digest != LevelsDigest{};
    if (bound && slot.levels_digest != *levels) return Error::kStateParamsMismatch;
    // Unbound and used: the indices so far may have gone with other lower levels (docs/state.md §16).
    if (!bound && slot.next != 0 && !levels_in_key_id) return Error::kStateUnbound;
  }
  if (slot.device != to_u64(st.st_dev) || slot.inode != to_u64(st.st_ino)) return Error::kStateCopied;
  if (!format::same_file_handle(slot.file_handle, handle ? &*handle : nullptr)) return Error::kStateCopied;
  return Error::kOk;
}

const LevelsDigest* levels_of(const std::optional<LevelsDigest>& levels) noexcept {
  return levels ? &*levels : nullptr;
}

// After a reservation that wrote `slot`: within 2 x the threshold, tell the caller how far the
// stop is (docs/state.md §5). T = 0 turns the gate and this notice off.
void notice_low_signatures(const format::Slot& slot, const std::string& path, const StateOptions& options) noexcept {
  if (options.low_signatures_notice == nullptr) return;
  const std::uint64_t start = slot.is_lease() ? slot.lease_start : 0;
  const std::uint64_t threshold =
      exhaustion_threshold(slot.low_signatures_warning(), slot.max_signatures > start ? slot.max_signatures - start : 0);
  const std::uint64_t remaining = slot.next < slot.max_signatures ? slot.max_signatures - slot.next : 0;
  if (threshold == 0 || remaining > 2 * threshold) return;  // threshold <= range / 10: no overflow
  LowSignaturesNotice notice;
  notice.path = &path;
  notice.remaining = remaining;
  notice.threshold = threshold;
  notice.waits_for_acknowledgement = !slot.is_lease() && !slot.exhaustion_acknowledged();
  // The gate let this reservation through, so remaining >= threshold.
  notice.before_stop = notice.waits_for_acknowledgement ? remaining - std::min(remaining, threshold) : remaining;
  options.low_signatures_notice(notice);
}

}  // namespace

// A forked child inherits the descriptor, and with it the parent's open file description: an OFD
// lock taken through it would be the parent's lock too. So each process locks through its own.
Error StateHandle::Impl::use_own_descriptor() noexcept {
  const std::uint64_t me = process_token();
  if (fd.valid() && fd_owner == me) return Error::kOk;
  auto opened = fs::open_checked_state_file(reopen_path, options);
  if (!opened) return opened.error();
  if (to_u64(opened->st.st_dev) != device || to_u64(opened->st.st_ino) != inode) return Error::kStateCopied;
  const auto handle = fs::file_handle_digest(opened->fd.get());
  if (file_handle && handle && *handle != *file_handle) return Error::kStateCopied;  // inode number reused
  release_foreign_descriptor();
  fd = std::move(opened->fd);
  fd_owner = me;
  return Error::kOk;
}

Result<format::Current> StateHandle::Impl::read_checked() noexcept {
  auto current = io::read_current(fd.get());
  if (!current) return current.error();
  const format::Slot& slot = current->slot;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error::kStateUnreadable;
  if (st.st_nlink == 0) return Error::kStateMissing;  // deleted while open: nobody could check it later
  if (Error e = check_identity(slot, key_id, levels_of(levels), levels_in_key_id, st, file_handle);
      e != Error::kOk) {
    return e;
  }
  if (slot.device != device || slot.inode != inode || slot.instance_id != instance_id) return Error::kStateCopied;
  if (slot.generation < last_generation || slot.next < last_next) return Error::kStateCopied;  // rolled back
  last_generation = slot.generation;
  last_next = slot.next;
  return current;
}

Result<std::uint64_t> StateHandle::Impl::take_index(std::uint64_t batch) noexcept {
  if (batch == 0) return Error::kInvalidArgument;
  if (batch > kMaxReserve) return Error::kReserveTooLarge;
  if (owner != process_token()) return Error::kForeignProcess;
  registry->pass_fork_gate();
  std::lock_guard guard(entry->mutex);
  if (poisoned.load()) return Error::kStatePoisoned;

  const std::uint64_t me = process_token();
  if (reservation_owner != me) reserved_next = reserved_end = 0;  // a child never uses its parent's
  if (reserved_next < reserved_end) return reserved_next++;

  if (Error e = use_own_descriptor(); e != Error::kOk) return e;
  auto lock = io::OfdLock::acquire(fd.get(), /*exclusive=*/true);
  if (!lock) return lock.error();
  auto current = read_checked();
  if (!current) return current.error();
  const format::Slot& slot = current->slot;
  if (slot.next >= slot.max_signatures) return Error::kExhausted;
  // More than is left would silently burn the rest of the key (docs/state.md §8).
  if (batch > slot.max_signatures - slot.next) return Error::kReserveTooLarge;
  // The key's last indices wait for `klms-state acknowledge` (docs/state.md §5): refused before
  // anything is written or witnessed, so that nothing is spent.
  if (slot.awaits_acknowledgement(batch)) return Error::kExhaustionNotAcknowledged;
  if (slot.generation == std::numeric_limits<std::uint64_t>::max()) return Error::kIndexOverflow;
  // A fleet file (docs/fleet.md): the cluster grants first, durably by its quorum; then the file
  // records the grant; then the indices go out. A crash in between loses them, never repeats one.
  if (slot.witnessed() && slot.witness.kind == WitnessKind::kEtcd) return take_from_fleet(*current, batch);
  // A witnessed file must agree with its witness before anything is written (docs/state.md "The witness").
  CounterReading seen;
  if (Error e = witness::settle(slot, reopen_path, options, &seen); e != Error::kOk) return e;

  format::Slot updated = slot;
  updated.generation = slot.generation + 1;
  updated.next = slot.next + batch;  // cannot pass max: checked above
  updated.reserving_pid = static_cast<std::uint32_t>(::getpid());
  witness::record_write(updated, batch, seen);
  if (levels && updated.levels_digest == LevelsDigest{}) updated.levels_digest = *levels;  // bind a version-1 file
  if (io::write_slot_durably(fd.get(), *current, updated) != Error::kOk) {
    // The file is now unknown (the page may or may not reach the disk): fail closed until reopened.
    poisoned.store(true);
    return Error::kStateWriteFailed;
  }
  // The file first, then the witness, then the indices: a crash in between loses them, never repeats one.
  if (Error e = witness::advance(updated, batch, reopen_path, options); e != Error::kOk) {
    poisoned.store(true);
    return e;
  }
  last_generation = updated.generation;
  last_next = updated.next;
  reserved_next = slot.next + 1;
  reserved_end = updated.next;
  reservation_owner = me;
  notice_low_signatures(updated, reopen_path, options);
  return slot.next;
}

Result<std::uint64_t> StateHandle::Impl::take_from_fleet(const format::Current& current, std::uint64_t batch) noexcept {
  const format::Slot& slot = current.slot;
  auto grant = witness::reserve_from_fleet(slot, batch, options);
  if (!grant) return grant.error();
  format::Slot updated = slot;
  updated.generation = slot.generation + 1;
  updated.next = grant->start + grant->count;  // <= block_end <= max: checked by the gate
  updated.witness.fleet = grant->binding;
  updated.reserving_pid = static_cast<std::uint32_t>(::getpid());
  if (levels && updated.levels_digest == LevelsDigest{}) updated.levels_digest = *levels;
  if (io::write_slot_durably(fd.get(), current, updated) != Error::kOk) {
    poisoned.store(true);
    return Error::kStateWriteFailed;
  }
  last_generation = updated.generation;
  last_next = updated.next;
  reserved_next = grant->start + 1;
  reserved_end = updated.next;
  reservation_owner = process_token();
  notice_low_signatures(updated, reopen_path, options);
  return grant->start;
}

Result<StateInfo> StateHandle::Impl::info_locked() noexcept {
  if (Error e = use_own_descriptor(); e != Error::kOk) return e;
  auto lock = io::OfdLock::acquire(fd.get(), /*exclusive=*/false);
  if (!lock) return lock.error();
  auto current = read_checked();
  if (!current) return current.error();
  return format::make_info(current->slot, device, inode, file_handle ? &*file_handle : nullptr);
}

std::uint64_t StateHandle::Impl::reserved_unused_locked() const noexcept {
  if (reservation_owner != process_token()) return 0;
  return reserved_end - reserved_next;
}

Result<std::shared_ptr<StateHandle>> StateHandle::open(const std::string& path, const KeyId& expected_key,
                                                       const StateOptions& options) noexcept {
  return open_bound(path, KeyBinding{expected_key, {}, false}, false, options);
}

Result<std::shared_ptr<StateHandle>> StateHandle::open(const std::string& path, const KeyBinding& binding,
                                                       const StateOptions& options) noexcept {
  return open_bound(path, binding, true, options);
}

Result<std::shared_ptr<StateHandle>> StateHandle::open_bound(const std::string& path, const KeyBinding& binding,
                                                             bool check_levels, const StateOptions& options) noexcept {
  const KeyId& expected_key = binding.key_id;
  const LevelsDigest* levels = check_levels ? &binding.params : nullptr;
  const bool levels_in_key_id = binding.params_in_key_id;
  try {
    auto opened = fs::open_checked_state_file(path, options);
    if (!opened) return opened.error();
    format::Slot slot;
    {
      auto lock = io::OfdLock::acquire(opened->fd.get(), /*exclusive=*/false);
      if (!lock) return lock.error();
      auto current = io::read_current(opened->fd.get());
      if (!current) return current.error();
      slot = current->slot;
    }
    const auto handle = fs::file_handle_digest(opened->fd.get());
    if (Error e = check_identity(slot, expected_key, levels, levels_in_key_id, opened->st, handle);
        e != Error::kOk) {
      return e;
    }
    // Every open consults the witness: a restored file fails here, before a signer is built.
    if (Error e = witness::check_at_open(slot, path, options); e != Error::kOk) return e;

    // Everything that allocates, before the registry lock (a handle destroyed under it would deadlock).
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    auto reopen_path = absolute_path(path);
    if (!reopen_path) return reopen_path.error();
    impl->reopen_path = std::move(*reopen_path);
    impl->options = options;
    impl->key_id = expected_key;
    impl->instance_id = slot.instance_id;
    impl->device = to_u64(opened->st.st_dev);
    impl->inode = to_u64(opened->st.st_ino);
    impl->file_handle = handle;
    if (levels != nullptr) impl->levels = *levels;
    impl->levels_in_key_id = levels_in_key_id;
    impl->fd = std::move(opened->fd);
    impl->fd_owner = process_token();
    impl->last_generation = slot.generation;
    impl->last_next = slot.next;
    Impl* raw = impl.get();
    std::shared_ptr<StateHandle> fresh(new StateHandle(std::move(impl)));

    std::shared_ptr<StateHandle> existing;  // released after the registry lock
    auto& registry = registry::Registry::instance();
    raw->registry = &registry;
    std::lock_guard guard(registry.mutex());
    registry::FileEntry* entry = registry.acquire({raw->device, raw->inode});
    if (entry == nullptr) return Error::kOutOfMemory;
    existing = entry->current.lock();
    // The shared handle serves only an opener that expects the same binding.
    if (existing && !existing->poisoned() && existing->impl_->instance_id == slot.instance_id &&
        existing->impl_->key_id == expected_key && existing->impl_->levels == raw->levels) {
      registry.release(entry);
      return existing;
    }
    try {
      entry->handles.push_back(raw);
    } catch (...) {
      registry.release(entry);
      return Error::kOutOfMemory;
    }
    raw->entry = entry;
    entry->current = fresh;
    return fresh;
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  } catch (...) {
    return Error::kInternal;
  }
}

StateHandle::StateHandle(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}

StateHandle::~StateHandle() {
  impl_->release_foreign_descriptor();  // the Impl's UniqueFd closes only this process's own
  registry::FileEntry* entry = impl_->entry;
  if (entry == nullptr) return;
  // Destroyed in a copy of the process that opened it: that registry is abandoned here, its mutex
  // perhaps locked forever; leave its bookkeeping alone.
  if (impl_->owner != process_token()) return;
  auto& registry = *impl_->registry;
  std::lock_guard guard(registry.mutex());
  std::erase(entry->handles, impl_.get());
  registry.release(entry);
}

Result<IndexLease> StateHandle::take(std::uint64_t batch) noexcept {
  auto index = impl_->take_index(batch);
  if (!index) return index.error();
  return IndexLease(*index, process_token());
}

Result<StateInfo> StateHandle::info() noexcept {
  if (impl_->owner != process_token()) return Error::kForeignProcess;
  impl_->registry->pass_fork_gate();
  std::lock_guard guard(impl_->entry->mutex);
  return impl_->info_locked();
}

Result<std::uint64_t> StateHandle::remaining_signatures() noexcept {
  if (impl_->owner != process_token()) return Error::kForeignProcess;
  impl_->registry->pass_fork_gate();
  std::lock_guard guard(impl_->entry->mutex);
  auto info = impl_->info_locked();
  if (!info) return info.error();
  return info->remaining() + impl_->reserved_unused_locked();  // both within max: cannot wrap
}

std::uint64_t StateHandle::reserved_unused() const noexcept {
  if (impl_->owner != process_token()) return 0;
  std::lock_guard guard(impl_->entry->mutex);
  return impl_->reserved_unused_locked();
}

bool StateHandle::poisoned() const noexcept { return impl_->poisoned.load(); }
const std::string& StateHandle::path() const noexcept { return impl_->path; }
const KeyId& StateHandle::key_id() const noexcept { return impl_->key_id; }

}  // namespace klms::state
