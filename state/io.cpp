#include "state/io.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace klms::state {
namespace {

std::atomic<unsigned> g_writes_until_failure{0};
// The errno of this thread's last failed durable write, for the error message (docs/state.md "Errors").
thread_local int g_last_write_errno = 0;

Error write_failed(int err) noexcept {
  g_last_write_errno = err != 0 ? err : EIO;
  return Error::kStateWriteFailed;
}
std::atomic<bool> g_fail_in_fsync{false};

// True when the test hook says this durable write fails.
bool injected_failure_now() noexcept {
  unsigned left = g_writes_until_failure.load();
  while (left != 0) {
    if (g_writes_until_failure.compare_exchange_weak(left, left - 1)) return left == 1;
  }
  return false;
}

Error write_durably(int fd, const std::uint8_t* data, std::size_t len, std::uint64_t offset) noexcept {
  const bool inject = injected_failure_now();
  const bool inject_in_fsync = inject && g_fail_in_fsync.load();
  if (inject && !inject_in_fsync) return write_failed(EIO);
  std::size_t done = 0;
  while (done < len) {
    const ssize_t n = ::pwrite(fd, data + done, len - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    // A short write goes on where it stopped (the next call reports the error); 0 or -1 is final.
    if (n <= 0) return write_failed(n < 0 ? errno : EIO);
    done += static_cast<std::size_t>(n);
  }
  // No EINTR retry: after a failed fsync the dirty pages may be gone, a retry would "succeed".
  if (::fsync(fd) != 0) return write_failed(errno);
  if (inject_in_fsync) return write_failed(EIO);
  return Error::kOk;
}

}  // namespace

int last_state_write_errno() noexcept { return g_last_write_errno; }

void record_state_write_errno(int err) noexcept { g_last_write_errno = err; }

void inject_state_write_failure(unsigned writes_until_failure, bool fail_in_fsync) noexcept {
  g_fail_in_fsync.store(fail_in_fsync);
  g_writes_until_failure.store(writes_until_failure);
}

namespace io {

void UniqueFd::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);  // close() errors are not retried on Linux: the fd is gone either way
  fd_ = fd;
}

Result<OfdLock> OfdLock::acquire(int fd, bool exclusive) noexcept {
  struct flock lock {};
  lock.l_type = exclusive ? F_WRLCK : F_RDLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;  // the whole file
  lock.l_pid = 0;  // required for OFD locks
  while (::fcntl(fd, F_OFD_SETLKW, &lock) != 0) {
    if (errno != EINTR) return Error::kStateLockFailed;
  }
  return OfdLock(fd);
}

OfdLock::~OfdLock() {
  if (fd_ < 0) return;
  struct flock lock {};
  lock.l_type = F_UNLCK;
  lock.l_whence = SEEK_SET;
  ::fcntl(fd_, F_OFD_SETLK, &lock);  // cannot fail on a valid descriptor; closing it unlocks anyway
}

Error read_image(int fd, format::FileImage& image, std::uint64_t& size) noexcept {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error::kStateUnreadable;
  size = static_cast<std::uint64_t>(st.st_size);
  image.fill(0);
  const std::size_t want = size < image.size() ? static_cast<std::size_t>(size) : image.size();
  std::size_t done = 0;
  while (done < want) {
    const ssize_t n = ::pread(fd, image.data() + done, want - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::kStateUnreadable;
    if (n == 0) {  // shrank since fstat
      size = done;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  return Error::kOk;
}

Result<format::Current> read_current(int fd) noexcept {
  format::FileImage image;
  std::uint64_t size = 0;
  if (Error e = read_image(fd, image, size); e != Error::kOk) return e;
  return format::select_current(image, size);
}

Result<format::Recovered> read_for_recovery(int fd) noexcept {
  format::FileImage image;
  std::uint64_t size = 0;
  if (Error e = read_image(fd, image, size); e != Error::kOk) return e;
  return format::select_for_recovery(image, size);
}

Error write_block_durably(int fd, unsigned block, const format::Slot& slot) noexcept {
  format::Block bytes;
  format::encode_slot(slot, bytes);
  return write_durably(fd, bytes.data(), bytes.size(), format::block_offset(block));
}

Error write_slot_durably(int fd, const format::Current& current, const format::Slot& slot) noexcept {
  format::Slot written = slot;
  written.version = format::kFormatVersion;
  const unsigned first = format::first_block_to_write(current);
  if (Error e = write_block_durably(fd, first, written); e != Error::kOk) return e;
  return write_block_durably(fd, first ^ 1u, written);
}

Error write_image_durably(int fd, const format::FileImage& image) noexcept {
  return write_durably(fd, image.data(), image.size(), 0);
}

Error fill_random(std::uint8_t* out, std::size_t len) noexcept {
  std::size_t done = 0;
  while (done < len) {
    const ssize_t n = ::getrandom(out + done, len - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error::kInternal;
    done += static_cast<std::size_t>(n);
  }
  return Error::kOk;
}

}  // namespace io
}  // namespace klms::state
