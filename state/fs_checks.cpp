#include "state/fs_checks.h"

#include <fcntl.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <climits>
#include <cerrno>
#include <cstring>

#include "base/endian.h"
#include "hashes/backend.h"

namespace klms::state::fs {
namespace {

struct FsMagic {
  std::uint32_t magic;
  std::string_view name;
};

// statfs f_type values (linux/magic.h and the file systems' own headers). Everything here either
// reaches the file over a network or lets several hosts mount the same storage.
constexpr FsMagic kNetworkFileSystems[] = {
    {0x00006969, "nfs"},
    {0x0000517B, "smb"},
    {0xFF534D42, "cifs"},
    {0xFE534D42, "smb2"},
    {0x65735546, "fuse"},  // sshfs, glusterfs, s3fs, ... cannot tell which: refuse all
    {0x01021997, "9p"},
    {0x5346414F, "afs"},
    {0x6B414653, "kafs"},
    {0x00C36400, "ceph"},
    {0x73757245, "coda"},
    {0x0000564C, "ncp"},
    {0x7461636F, "ocfs2"},
    {0x01161970, "gfs2"},
    {0x0BD00BD0, "lustre"},
    {0x47504653, "gpfs"},
    {0x20030528, "orangefs"},
    {0xAAD7AAEA, "panfs"},
    {0x013111A8, "ibrix"},
};

}  // namespace

std::string_view network_fs_name(std::uint64_t statfs_type) noexcept {
  // f_type is a signed long: a 32-bit magic with the top bit set may arrive sign-extended.
  const std::uint64_t high = statfs_type >> 32;
  if (high != 0 && high != 0xFFFFFFFFu) return {};
  const auto magic = static_cast<std::uint32_t>(statfs_type);
  for (const FsMagic& fs : kNetworkFileSystems) {
    if (fs.magic == magic) return fs.name;
  }
  return {};
}

Error check_file_system(int fd, const StateOptions& options) noexcept {
  if (options.allow_network_fs) return Error::kOk;
  struct statfs sfs {};
  if (::fstatfs(fd, &sfs) != 0) return Error::kStateUnreadable;
  const auto type = static_cast<std::uint64_t>(static_cast<std::int64_t>(sfs.f_type));
  return network_fs_name(type).empty() ? Error::kOk : Error::kStateNetworkFs;
}

Error check_directory(const struct stat& st) noexcept {
  if (!S_ISDIR(st.st_mode)) return Error::kStateInsecureDirectory;
  if (st.st_uid != ::geteuid() && st.st_uid != 0) return Error::kStateInsecureDirectory;
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return Error::kStateInsecureDirectory;
  return Error::kOk;
}

Error check_file(const struct stat& st) noexcept {
  if (!S_ISREG(st.st_mode)) return Error::kStateInsecureFile;
  if (st.st_uid != ::geteuid()) return Error::kStateInsecureFile;
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return Error::kStateInsecureFile;
  return check_not_readable_by_others(st);
}

Error check_not_readable_by_others(const struct stat& st) noexcept {
  // Whoever can open the file can take an OFD lock on it and hold it forever (docs/state.md §3).
  return (st.st_mode & (S_IRGRP | S_IROTH)) != 0 ? Error::kStateReadableByOthers : Error::kOk;
}

bool names_a_witness(int fd) noexcept {
  auto current = io::read_current(fd);
  return current && (current->slot.witnessed() || current->slot.witness_required());
}

Error check_file_handles(int fd, const StateOptions& options, bool witnessed) noexcept {
  // docs/state.md §18: without handles a copy-up or a reused image layer looks like the original.
  if (witnessed || options.allow_no_file_handles) return Error::kOk;
  return file_handle_digest(fd) ? Error::kOk : Error::kStateNoFileHandles;
}

Error error_from_open_errno(int err) noexcept {
  switch (err) {
    case ENOENT:
    case ENOTDIR:  // a path component is a file: there is no state file there
      return Error::kStateMissing;
    case ELOOP:   // O_NOFOLLOW on a symbolic link
    case EMLINK:  // the same on some systems
    case EISDIR:
    case ENXIO:   // a socket or a device without a driver
      return Error::kStateInsecureFile;
    case ENOMEM:
      return Error::kOutOfMemory;
    case EROFS:
      return Error::kStateReadOnlyFs;
    case EACCES:
    case EPERM:
      return Error::kStatePermissionDenied;
    case ENAMETOOLONG:
      return Error::kStateNameTooLong;
    default:  // EIO, ...
      return Error::kStateUnreadable;
  }
}

std::optional<FileHandleDigest> file_handle_digest(int fd) noexcept {
  alignas(struct file_handle) unsigned char storage[sizeof(struct file_handle) + MAX_HANDLE_SZ];
  auto* handle = reinterpret_cast<struct file_handle*>(storage);
  handle->handle_bytes = MAX_HANDLE_SZ;
  int mount_id = 0;
  if (::name_to_handle_at(fd, "", handle, &mount_id, AT_EMPTY_PATH) != 0) return std::nullopt;
  // The handle type, little-endian, then its bytes: mount_id is left out, it changes per mount.
  unsigned char input[4 + MAX_HANDLE_SZ];
  const auto type = static_cast<std::uint32_t>(handle->handle_type);
  endian::store_le32(input, type);
  const std::size_t len = handle->handle_bytes <= MAX_HANDLE_SZ ? handle->handle_bytes : MAX_HANDLE_SZ;
  std::memcpy(input + 4, handle->f_handle, len);
  FileHandleDigest digest{};
  hashes::sha256_digest(input, 4 + len, digest.data());
  return digest;
}

bool has_control_characters(const std::string& text) noexcept {
  // A path is printed (`pkey -text`, error messages): nothing in it may start a line, move the
  // cursor or reorder text. So: valid UTF-8 only, and none of the C0 and C1 controls, DEL, the line
  // and paragraph separators, or the bidirectional controls.
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char b = p[i];
    std::uint32_t cp = 0;
    std::size_t len = 0;
    if (b < 0x80) {
      cp = b;
      len = 1;
    } else if ((b & 0xE0) == 0xC0) {
      cp = b & 0x1Fu;
      len = 2;
    } else if ((b & 0xF0) == 0xE0) {
      cp = b & 0x0Fu;
      len = 3;
    } else if ((b & 0xF8) == 0xF0) {
      cp = b & 0x07u;
      len = 4;
    } else {
      return true;  // a continuation byte or 0xF8..0xFF where a character should start
    }
    if (i + len > n) return true;
    for (std::size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return true;
      cp = (cp << 6) | (p[i + k] & 0x3Fu);
    }
    static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return true;  // overlong, surrogate
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) return true;                           // C0, DEL, C1
    if (cp == 0x2028 || cp == 0x2029 || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
        (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) {
      return true;  // line/paragraph separators, bidirectional controls
    }
    i += len;
  }
  return false;
}

bool is_tree_cache_name(std::string_view name) noexcept {
  // <state>.cache, <state>.cache.level<N>, and either with .tmp.<hex> (lms/signer.cpp cache_path,
  // lms/tree_cache.cpp): a name of that shape is another state file's cache, now or later.
  const auto tmp = name.rfind(".tmp.");
  if (tmp != std::string_view::npos) name = name.substr(0, tmp);
  const auto level = name.rfind(".level");
  if (level != std::string_view::npos && level + 6 < name.size() &&
      name.find_first_not_of("0123456789", level + 6) == std::string_view::npos) {
    name = name.substr(0, level);
  }
  constexpr std::string_view kCache = ".cache";
  return name.size() > kCache.size() && name.substr(name.size() - kCache.size()) == kCache;
}

Error check_name_fits(int dir_fd, const std::string& name) noexcept {
  long limit = dir_fd >= 0 ? ::fpathconf(dir_fd, _PC_NAME_MAX) : -1;
  if (limit <= 0) limit = NAME_MAX;
  return name.size() + kStateNameReserve <= static_cast<std::size_t>(limit) ? Error::kOk : Error::kStateNameTooLong;
}

Result<PathParts> split_path(const std::string& path) noexcept {
  try {
    if (path.empty() || path.back() == '/' || has_control_characters(path)) return Error::kStatePathInvalid;
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos) return PathParts{".", path};
    return PathParts{slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
  } catch (...) {
    return Error::kOutOfMemory;
  }
}

Result<io::UniqueFd> open_checked_directory(const std::string& directory) noexcept {
  io::UniqueFd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) {
    const int err = errno;
    return err == ENOENT || err == ENOTDIR ? Error::kStateMissing : Error::kStateUnreadable;
  }
  struct stat st {};
  if (::fstat(dir.get(), &st) != 0) return Error::kStateUnreadable;
  if (Error e = check_directory(st); e != Error::kOk) return e;
  return dir;
}

Result<OpenedFile> open_checked_state_file(const std::string& path, const StateOptions& options) noexcept {
  auto parts = split_path(path);
  if (!parts) return parts.error();
  auto dir = open_checked_directory(parts->directory);
  if (!dir) return dir.error();
  OpenedFile file;
  // Relative to the directory we checked, so the file is in that directory and no other.
  // O_NONBLOCK only keeps a FIFO or device planted at the path from blocking the open.
  file.fd.reset(::openat(dir->get(), parts->name.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!file.fd.valid()) return error_from_open_errno(errno);
  if (::fstat(file.fd.get(), &file.st) != 0) return Error::kStateUnreadable;
  if (Error e = check_file(file.st); e != Error::kOk) return e;
  if (Error e = check_file_system(file.fd.get(), options); e != Error::kOk) return e;
  // Without file handles only a witnessed file (or one that must be bound first) is safe (§18):
  // its flags never go back to unwitnessed, so an unlocked read of them decides.
  if (Error e = check_file_handles(file.fd.get(), options, names_a_witness(file.fd.get())); e != Error::kOk) return e;
  return file;
}

}  // namespace klms::state::fs
