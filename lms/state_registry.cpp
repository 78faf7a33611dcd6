#include "lms/state_registry.h"

#include <pthread.h>

namespace klms::lms::state_registry {

Registry& Registry::instance() noexcept {
  // Never destroyed (no exit-time destructor), registered for fork exactly once.
  static Registry* registry = [] {
    auto* r = new Registry;
    ::pthread_atfork(&Registry::prepare_fork, &Registry::after_fork_in_parent, &Registry::after_fork_in_child);
    return r;
  }();
  return *registry;
}

FileEntry* Registry::acquire(const FileKey& key) noexcept {
  try {
    auto found = files_.find(key);
    if (found == files_.end()) {
      auto entry = std::make_unique<FileEntry>();
      entry->key = key;
      found = files_.emplace(key, entry.release()).first;
    }
    ++found->second->users;
    return found->second;
  } catch (...) {
    return nullptr;
  }
}

void Registry::release(FileEntry* entry) noexcept {
  if (entry == nullptr || --entry->users != 0) return;
  files_.erase(entry->key);
  delete entry;
}

// A fork while another thread is inside a reservation (file mutex and OFD lock held) would give the
// child a mutex locked by a thread that does not exist there. So the fork waits: prepare takes the
// registry mutex and every file mutex, in that order, and both sides release them afterwards.
void Registry::prepare_fork() noexcept {
  Registry& r = instance();
  r.fork_gate_.lock();
  r.mutex_.lock();
  for (auto& [key, entry] : r.files_) entry->mutex.lock();
}

void Registry::after_fork_in_parent() noexcept {
  Registry& r = instance();
  for (auto& [key, entry] : r.files_) entry->mutex.unlock();
  r.mutex_.unlock();
  r.fork_gate_.unlock();
}

void Registry::after_fork_in_child() noexcept {
  // The child's only thread is the one that locked everything in prepare_fork, so it may unlock.
  Registry& r = instance();
  for (auto& [key, entry] : r.files_) {
    for (StateHandle::Impl* handle : entry->handles) forget_after_fork(*handle);
    entry->mutex.unlock();
  }
  r.mutex_.unlock();
  r.fork_gate_.unlock();
}

EntryUse::EntryUse(const FileKey& key) noexcept {
  Registry& r = Registry::instance();
  std::lock_guard guard(r.mutex());
  entry_ = r.acquire(key);
}

EntryUse::~EntryUse() {
  Registry& r = Registry::instance();
  std::lock_guard guard(r.mutex());
  r.release(entry_);
}

}  // namespace klms::lms::state_registry
