// `klms-state acknowledge`: the record that a key may use its last indices (docs/state.md §5;
// docs/rfc10033.md "The exhaustion warning: should signing wait for an acknowledgement?").
#include <sys/stat.h>
#include <unistd.h>

#include <limits>

#include "state/store.h"
#include "state/store_internal.h"
#include "state/witness_gate.h"

namespace klms::state {

Result<StateInfo> acknowledge_exhaustion(const std::string& path, const KeyId& key_id,
                                         const StateOptions& options) noexcept {
  auto opened = fs::open_checked_state_file(path, options);
  if (!opened) return opened.error();
  const int fd = opened->fd.get();
  const auto device = static_cast<std::uint64_t>(opened->st.st_dev);
  const auto inode = static_cast<std::uint64_t>(opened->st.st_ino);
  const detail::WriteLocks locks(fd, device, inode);
  if (locks.error() != Error::kOk) return locks.error();
  auto current = io::read_current(fd);
  if (!current) return current.error();
  const format::Slot& slot = current->slot;
  // Checked as a lease's parent is: the acknowledgement is for this key's one signing state.
  if (slot.key_id != key_id) return Error::kStateForeign;
  if (slot.is_lease()) return Error::kInvalidArgument;  // never gated: nothing to acknowledge
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error::kStateUnreadable;
  if (st.st_nlink == 0) return Error::kStateMissing;
  const auto handle = fs::file_handle_digest(fd);
  if (slot.device != device || slot.inode != inode) return Error::kStateCopied;
  if (!format::same_file_handle(slot.file_handle, handle ? &*handle : nullptr)) return Error::kStateCopied;

  format::Slot updated = slot;
  if (!slot.exhaustion_acknowledged()) {
    if (slot.generation == std::numeric_limits<std::uint64_t>::max()) return Error::kIndexOverflow;
    updated.generation = slot.generation + 1;
    updated.flags |= format::kFlagExhaustionAcknowledged;
    // Same next index, same instance: signers that have the file open go on, now past the gate.
    if (Error e = io::write_slot_durably(fd, *current, updated); e != Error::kOk) return e;
  }
  updated.version = format::kFormatVersion;
  StateInfo info = format::make_info(updated, device, inode, handle ? &*handle : nullptr);
  witness::describe(updated, options, info, path);
  return info;
}

}  // namespace klms::state
