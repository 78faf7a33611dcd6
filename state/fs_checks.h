// Where a state file may live and what it must look like before we trust it (docs/state.md §3, §12):
// a directory nobody else can write, a private regular file of ours reached without following a
// symbolic link, on a local file system.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"
#include "state/io.h"
#include "state/store.h"

namespace klms::state::fs {

// The network / shared-storage file system a statfs f_type names, or "" for a local one. Refused
// because a lock lease lost during a partition (or a second host mounting the same disk) lets two
// hosts sign with one index.
std::string_view network_fs_name(std::uint64_t statfs_type) noexcept;
// kStateNetworkFs when the file system of `fd` is one of those and the options do not allow it.
Error check_file_system(int fd, const StateOptions& options) noexcept;

// kStateInsecureDirectory unless owned by us or root and writable by nobody else. The sticky bit
// does not help: it stops others from removing our file, not from creating one before we do.
Error check_directory(const struct stat& st) noexcept;
// kStateInsecureFile unless a regular file owned by the effective uid, writable by nobody else;
// kStateReadableByOthers when group or others may read it (check_not_readable_by_others).
Error check_file(const struct stat& st) noexcept;
// kStateReadableByOthers when the mode lets group or others open the file for reading: they could
// hold its lock and block signing forever (docs/state.md §3).
Error check_not_readable_by_others(const struct stat& st) noexcept;
// kStateNoFileHandles when the file system of `fd` gives no file handle (overlayfs, ...), unless
// the options allow it or the file is `witnessed` (a rollback witness catches what the handle would
// miss: docs/state.md §18).
Error check_file_handles(int fd, const StateOptions& options, bool witnessed) noexcept;
// Whether the state file open at `fd` names a witness (bound or required), read without a lock.
bool names_a_witness(int fd) noexcept;
// What an open(2) errno means for a state file.
Error error_from_open_errno(int err) noexcept;

// SHA-256 of the file's handle (name_to_handle_at: for ext4, xfs, btrfs, tmpfs the inode number and
// its generation, which changes when a freed inode number is given to a new file). nullopt when the
// file system has no handles or the call is refused: then only device and inode are compared.
std::optional<FileHandleDigest> file_handle_digest(int fd) noexcept;

struct PathParts {
  std::string directory;  // "." when the path has no slash
  std::string name;
};
// kStatePathInvalid for "", a path ending in '/', or one with control characters.
Result<PathParts> split_path(const std::string& path) noexcept;
// True unless `text` is valid UTF-8 without C0/C1 controls, DEL, U+2028/U+2029 or bidirectional
// controls (anything that could make a printed path start a line or reorder what follows).
bool has_control_characters(const std::string& text) noexcept;
// True for a name some state file's tree cache uses or will use: `<x>.cache`, `<x>.cache.level<N>`,
// either followed by `.tmp.<anything>`. A new state file there would be destroyed by that cache's
// next write.
bool is_tree_cache_name(std::string_view name) noexcept;
// kStateNameTooLong unless `name` plus kStateNameReserve fits the name limit of the directory
// `dir_fd` (or NAME_MAX when dir_fd is -1).
Error check_name_fits(int dir_fd, const std::string& name) noexcept;

// The directory of `path`, opened and checked.
Result<io::UniqueFd> open_checked_directory(const std::string& directory) noexcept;

struct OpenedFile {
  io::UniqueFd fd;
  struct stat st {};
};
// The state file, opened read-write relative to its checked directory with O_NOFOLLOW|O_CLOEXEC,
// then checked (file, file system). Every open for writing goes through here.
Result<OpenedFile> open_checked_state_file(const std::string& path, const StateOptions& options) noexcept;

}  // namespace klms::state::fs
