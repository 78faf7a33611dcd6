// What the state store's administrative writes share (state/store.cpp, state/recovery.cpp): the
// locks of a reservation, exclusive creation, and the checked directory of a new file.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "state/file_format.h"
#include "state/fs_checks.h"
#include "state/io.h"
#include "state/registry.h"

namespace klms::state::detail {

// The locks a reservation takes, for the administrative writes (adopt, lease, discard), in the
// lock order of state/registry.h: past the fork gate, the process-wide file mutex, then the
// exclusive OFD lock. No handle of this process or any other is mid-write while they are held.
class WriteLocks {
 public:
  WriteLocks(int fd, std::uint64_t device, std::uint64_t inode) noexcept
      : entry_((registry::Registry::instance().pass_fork_gate(), registry::FileKey{device, inode})) {
    if (entry_.get() == nullptr) {
      error_ = Error::kOutOfMemory;
      return;
    }
    guard_ = std::unique_lock<std::mutex>(entry_.get()->mutex);
    auto lock = io::OfdLock::acquire(fd, /*exclusive=*/true);
    if (!lock) {
      error_ = lock.error();
      return;
    }
    ofd_.emplace(std::move(*lock));
  }
  Error error() const noexcept { return error_; }

 private:
  registry::EntryUse entry_;
  std::unique_lock<std::mutex> guard_;
  std::optional<io::OfdLock> ofd_;
  Error error_ = Error::kOk;
};

// Creates `name` in `dir_fd` exclusively holding `proto` (its device, inode, file handle, instance
// id and generation filled in here), both blocks, fsync'd with the directory.
Error create_in(int dir_fd, const std::string& name, const format::Slot& proto) noexcept;

// The directory a new state file goes into, checked; its name in parts.
Result<io::UniqueFd> open_new_file_directory(const std::string& path, const StateOptions& options,
                                             fs::PathParts& parts) noexcept;

}  // namespace klms::state::detail
