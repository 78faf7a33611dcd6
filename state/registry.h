// The process-global table of open state files (docs/state.md §6, §8, §9): one entry per file (device,
// inode) with the process-wide mutex of that file, the handle every opener shares, and the fork
// handlers that keep both consistent in a child.
//
// Lock order: the fork gate, then the registry mutex, then file mutexes (only the fork handlers
// hold more than one; signing threads pass the gate before taking a file mutex). The
// registry mutex is held for bookkeeping only, never across I/O; a file mutex is held around a
// whole reservation, OFD lock and fsync included.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "state/store.h"

namespace klms::state::registry {

struct FileKey {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  auto operator<=>(const FileKey&) const = default;
};

// Everything this process shares about one state file.
struct FileEntry {
  FileKey key;
  // Held around every read-modify-write of the file and every use of a reservation: threads that
  // share a handle share its open file description, and OFD locks do not exclude them from each other.
  std::mutex mutex;
  // The rest is guarded by the registry mutex.
  std::weak_ptr<StateHandle> current;        // the handle open() hands out, if still alive
  std::vector<StateHandle::Impl*> handles;   // every live handle on this file (a poisoned one too)
  unsigned users = 0;                        // handles plus adoptions in progress
};

class Registry {
 public:
  // This process's registry, made at its first use and never destroyed, so that a handle released
  // from an atexit handler or a static destructor elsewhere still finds it. Registers the fork
  // handlers. A process that is a copy of another (fork, raw clone) gets a registry of its own:
  // the inherited one may hold mutexes locked by threads that do not exist in the copy (a raw
  // clone runs no atfork handler to release them), so it is abandoned, never touched again. A
  // CLONE_VM child shares the memory and gets one of its own too; its parent's stays the parent's.
  static Registry& instance() noexcept;

  std::mutex& mutex() noexcept { return mutex_; }
  // With mutex() held: the entry for `key`, created when absent, with one more user; null when out
  // of memory.
  FileEntry* acquire(const FileKey& key) noexcept;
  // With mutex() held: one user fewer; the entry is freed with its last user.
  void release(FileEntry* entry) noexcept;

  // Called before taking a file mutex for I/O. A fork waits for every file mutex, and glibc
  // mutexes are not fair: threads that sign in a loop would keep a fork waiting indefinitely. The
  // gate, closed by the fork first, stops new reservations from starting until the fork is done.
  void pass_fork_gate() noexcept {
    fork_gate_.lock();
    fork_gate_.unlock();
  }

 private:
  Registry() = default;
  // The oldest registry made by the process with this token, or null.
  static Registry* find(std::uint64_t owner) noexcept;
  static void prepare_fork() noexcept;
  static void after_fork_in_parent() noexcept;
  static void after_fork_in_child() noexcept;

  std::uint64_t owner_ = 0;  // process_token() of the process this registry belongs to
  Registry* next_ = nullptr;  // the list of every registry in this memory (registry.cpp)
  std::mutex fork_gate_;  // before mutex_ in the lock order
  std::mutex mutex_;
  std::map<FileKey, FileEntry*> files_;
};

// A FileEntry use for the length of a scope (adoption uses it to take the file mutex).
class EntryUse {
 public:
  explicit EntryUse(const FileKey& key) noexcept;
  ~EntryUse();
  EntryUse(const EntryUse&) = delete;
  EntryUse& operator=(const EntryUse&) = delete;
  FileEntry* get() const noexcept { return entry_; }

 private:
  Registry* registry_ = nullptr;
  FileEntry* entry_ = nullptr;
};

// Implemented by the handle (state/handle.cpp): a forked child drops the reservation and closes
// the inherited descriptor — it shares the parent's open file description, so its OFD locks would
// not exclude the parent's. Called by the child fork handler with every file mutex held.
void forget_after_fork(StateHandle::Impl& handle) noexcept;

}  // namespace klms::state::registry
