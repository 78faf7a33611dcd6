// The state-file operations that are not a handle's: creation at key generation, the display read,
// and adoption after a deliberate move (STATE.md §3, §4).
#include "lms/state_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <mutex>
#include <new>

#include "lms/state_file_format.h"
#include "lms/state_fs_checks.h"
#include "lms/state_io.h"
#include "lms/state_registry.h"

namespace klms::lms {
namespace {

template <typename T>
std::uint64_t to_u64(T v) noexcept { return static_cast<std::uint64_t>(v); }  // dev_t, ino_t

Error create_in(int dir_fd, const std::string& name, const KeyId& key_id, std::uint64_t max_signatures) noexcept {
  // O_EXCL: never overwrite; O_NOFOLLOW: with O_EXCL a symbolic link at the name is EEXIST anyway.
  state_io::UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                                 S_IRUSR | S_IWUSR));
  if (!fd.valid()) {
    const int err = errno;
    if (err == EEXIST) return Error::kStateExists;
    if (err == ENOMEM) return Error::kOutOfMemory;
    return err == ENOENT ? Error::kStateMissing : Error::kStateWriteFailed;
  }
  // From here on a failure removes the half-made file, so that key generation can be retried.
  Error result = [&]() noexcept {
    struct stat st {};
    if (::fchmod(fd.get(), S_IRUSR | S_IWUSR) != 0 || ::fstat(fd.get(), &st) != 0) return Error::kStateWriteFailed;
    state_format::Slot slot;
    slot.next = 0;
    slot.max_signatures = max_signatures;
    slot.key_id = key_id;
    slot.device = to_u64(st.st_dev);
    slot.inode = to_u64(st.st_ino);
    slot.reserving_pid = 0;
    if (auto handle = state_fs::file_handle_digest(fd.get())) slot.file_handle = *handle;
    if (Error e = state_io::fill_random(slot.instance_id.data(), slot.instance_id.size()); e != Error::kOk) return e;
    // Block 0 current (generation 1), block 1 older (generation 0): the first reservation writes block 1.
    state_format::FileImage image;
    state_format::Block block;
    slot.generation = 1;
    state_format::encode_slot(slot, block);
    std::copy(block.begin(), block.end(), image.begin());
    slot.generation = 0;
    state_format::encode_slot(slot, block);
    std::copy(block.begin(), block.end(), image.begin() + state_format::kBlockBytes);
    if (Error e = state_io::write_image_durably(fd.get(), image); e != Error::kOk) return e;
    // The directory entry too: a file that vanishes after a power loss would be "missing".
    if (::fsync(dir_fd) != 0) return Error::kStateWriteFailed;
    return Error::kOk;
  }();
  if (result != Error::kOk) ::unlinkat(dir_fd, name.c_str(), 0);
  return result;
}

// The directory a new state file goes into, checked; its name in parts.
Result<state_io::UniqueFd> open_new_file_directory(const std::string& path, const StateOptions& options,
                                                   state_fs::PathParts& parts) noexcept {
  auto split = state_fs::split_path(path);
  if (!split) return split.error();
  parts = std::move(*split);
  auto dir = state_fs::open_checked_directory(parts.directory);
  if (!dir) return dir.error() == Error::kStateMissing ? Error::kStateDirectoryMissing : dir.error();
  if (Error e = state_fs::check_file_system(dir->get(), options); e != Error::kOk) return e;
  return dir;
}

}  // namespace

Error check_state_file_creatable(const std::string& path, const StateOptions& options) noexcept {
  state_fs::PathParts parts;
  auto dir = open_new_file_directory(path, options, parts);
  if (!dir) return dir.error();
  struct stat st {};
  if (::fstatat(dir->get(), parts.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return Error::kStateExists;
  return errno == ENOENT ? Error::kOk : Error::kStateUnreadable;
}

Error create_state_file(const std::string& path, const KeyId& key_id, std::uint64_t max_signatures,
                        const StateOptions& options) noexcept {
  if (max_signatures == 0) return Error::kInvalidArgument;
  state_fs::PathParts parts;
  auto dir = open_new_file_directory(path, options, parts);
  if (!dir) return dir.error();
  return create_in(dir->get(), parts.name, key_id, max_signatures);
}

Result<StateInfo> read_state_file(const std::string& path) noexcept {
  if (path.empty()) return Error::kInvalidArgument;
  state_io::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) return state_fs::error_from_open_errno(errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error::kStateUnreadable;
  if (!S_ISREG(st.st_mode)) return Error::kStateInsecureFile;
  auto lock = state_io::OfdLock::acquire(fd.get(), /*exclusive=*/false);
  if (!lock) return lock.error();
  auto current = state_io::read_current(fd.get());
  if (!current) return current.error();
  const auto handle = state_fs::file_handle_digest(fd.get());
  return state_format::make_info(current->slot, to_u64(st.st_dev), to_u64(st.st_ino), handle ? &*handle : nullptr);
}

Result<StateInfo> adopt_state_file(const std::string& path, const AdoptOptions& options) noexcept {
  StateOptions open_options;
  open_options.allow_network_fs = options.allow_network_fs;
  auto opened = state_fs::open_checked_state_file(path, open_options);
  if (!opened) return opened.error();
  const std::uint64_t device = to_u64(opened->st.st_dev);
  const std::uint64_t inode = to_u64(opened->st.st_ino);
  const int fd = opened->fd.get();

  // The same locks as a reservation: no handle of this process or any other is mid-write.
  state_registry::EntryUse entry({device, inode});
  if (entry.get() == nullptr) return Error::kOutOfMemory;
  std::lock_guard guard(entry.get()->mutex);
  auto lock = state_io::OfdLock::acquire(fd, /*exclusive=*/true);
  if (!lock) return lock.error();
  auto current = state_io::read_current(fd);
  if (!current) return current.error();
  const state_format::Slot& slot = current->slot;
  if (options.expected_key && *options.expected_key != slot.key_id) return Error::kStateForeign;
  if (slot.generation == std::numeric_limits<std::uint64_t>::max()) return Error::kIndexOverflow;

  state_format::Slot adopted = slot;
  adopted.generation = slot.generation + 1;
  adopted.device = device;
  adopted.inode = inode;
  // Never backwards; past the maximum means exhausted, not wrapped.
  adopted.next = options.advance >= slot.max_signatures - slot.next ? slot.max_signatures : slot.next + options.advance;
  adopted.reserving_pid = static_cast<std::uint32_t>(::getpid());
  const auto handle = state_fs::file_handle_digest(fd);
  adopted.file_handle = handle ? *handle : FileHandleDigest{};
  if (Error e = state_io::fill_random(adopted.instance_id.data(), adopted.instance_id.size()); e != Error::kOk) {
    return e;
  }
  if (Error e = state_io::write_block_durably(fd, state_format::block_to_write(*current), adopted); e != Error::kOk) {
    return e;
  }
  return state_format::make_info(adopted, device, inode, handle ? &*handle : nullptr);
}

Error adopt_state_file(const std::string& path, const KeyId& key_id) noexcept {
  AdoptOptions options;
  options.expected_key = key_id;
  auto adopted = adopt_state_file(path, options);
  return adopted ? Error::kOk : adopted.error();
}

}  // namespace klms::lms
