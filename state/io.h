// The system calls under the state store: descriptors, open-file-description locks, reading the
// two blocks, and the durable write of one block (pwrite + fsync, with the test hook of invariant 2).
#pragma once

#include <cstdint>
#include <utility>

#include "base/error.h"
#include "state/file_format.h"

namespace klms::state::io {

// Owns one file descriptor.
class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  void reset(int fd = -1) noexcept;
  // Forgets the descriptor without closing it: it is another process's (a CLONE_VM child's, whose
  // descriptor table is not ours), and closing its number here would close one of ours.
  void release() noexcept { fd_ = -1; }

 private:
  int fd_ = -1;
};

// An open-file-description lock on the whole file (F_OFD_SETLKW), released on destruction.
//
// Why OFD locks and not classic POSIX (F_SETLK) locks: POSIX record locks belong to the process, so
// two handles or threads of one process never exclude each other, and closing ANY descriptor of the
// file in the process (a display read, a library that opens it for a moment) silently drops every
// lock the process holds on it. OFD locks belong to the open file description: two opens exclude
// each other even inside one process, and closing an unrelated descriptor drops nothing. Threads
// sharing one description do NOT exclude each other through it: the per-file mutex (state/registry.h)
// does that. flock() would also be per description but is emulated with POSIX locks on NFS.
class OfdLock {
 public:
  static Result<OfdLock> acquire(int fd, bool exclusive) noexcept;
  OfdLock(OfdLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  OfdLock& operator=(OfdLock&&) = delete;
  OfdLock(const OfdLock&) = delete;
  OfdLock& operator=(const OfdLock&) = delete;
  ~OfdLock();

 private:
  explicit OfdLock(int fd) noexcept : fd_(fd) {}
  int fd_ = -1;
};

// The first two blocks and the file's size. kStateUnreadable on an I/O error.
Error read_image(int fd, format::FileImage& image, std::uint64_t& size) noexcept;

// read_image + select_current: the slot in force. The caller holds an OFD lock.
Result<format::Current> read_current(int fd) noexcept;
// read_image + select_for_recovery (klms-state show and adopt only).
Result<format::Recovered> read_for_recovery(int fd) noexcept;

// Writes one block in place (pwrite) and fsyncs the file. Any error — short write included — is
// kStateWriteFailed, and the caller must treat the file as unknown from then on (Linux may drop
// dirty pages after a failed writeback and report success to a later fsync).
Error write_block_durably(int fd, unsigned block, const format::Slot& slot) noexcept;
// A reservation's or adoption's write (state/file_format.h): `slot`, as the current format
// version, into the block not holding `current` and then into the other, each made durable before
// the next begins. Only when this returns kOk may anything the slot records be handed out.
Error write_slot_durably(int fd, const format::Current& current, const format::Slot& slot) noexcept;
// The whole file image at once (creation).
Error write_image_durably(int fd, const format::FileImage& image) noexcept;

// Random bytes from getrandom(2) (blocking until the pool is initialised, never a clock).
Error fill_random(std::uint8_t* out, std::size_t len) noexcept;

}  // namespace klms::state::io
