#include "state/registry.h"

#include <pthread.h>

#include <atomic>
#include <exception>
#include <new>

#include "base/process_token.h"

namespace klms::state::registry {
namespace {

// Every registry made in this memory, newest first, never freed: one per process that shares the
// memory (a CLONE_VM child shares it with its parent, and each keeps its own), plus the inherited
// ones of a fork's parent, abandoned.
std::atomic<Registry*> g_registries{nullptr};
// The registry prepare_fork locked: the child handler must release that one, although the child,
// a new process, will use a registry of its own.
Registry* g_locked_for_fork = nullptr;

}  // namespace

Registry& Registry::instance() noexcept {
  static const bool fork_handlers_registered = [] {
    ::pthread_atfork(&Registry::prepare_fork, &Registry::after_fork_in_parent, &Registry::after_fork_in_child);
    return true;
  }();
  (void)fork_handlers_registered;
  const std::uint64_t me = process_token();
  if (Registry* r = find(me)) return *r;
  // Never destroyed (no exit-time destructor); an inherited one is abandoned as it is.
  auto* fresh = new (std::nothrow) Registry;
  if (fresh == nullptr) std::terminate();  // no memory for a few hundred bytes at first use
  fresh->owner_ = me;
  Registry* head = g_registries.load(std::memory_order_acquire);
  do {
    fresh->next_ = head;
  } while (!g_registries.compare_exchange_weak(head, fresh, std::memory_order_acq_rel));
  // Two threads of this process may both have pushed one: every thread uses the oldest.
  return *find(me);
}

Registry* Registry::find(std::uint64_t owner) noexcept {
  Registry* oldest = nullptr;
  for (Registry* r = g_registries.load(std::memory_order_acquire); r != nullptr; r = r->next_) {
    if (r->owner_ == owner) oldest = r;
  }
  return oldest;
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
  g_locked_for_fork = &r;
  r.fork_gate_.lock();
  r.mutex_.lock();
  for (auto& [key, entry] : r.files_) entry->mutex.lock();
}

void Registry::after_fork_in_parent() noexcept {
  Registry& r = *g_locked_for_fork;
  for (auto& [key, entry] : r.files_) entry->mutex.unlock();
  r.mutex_.unlock();
  r.fork_gate_.unlock();
}

void Registry::after_fork_in_child() noexcept {
  // The child's only thread is the one that locked everything in prepare_fork, so it may unlock.
  // It releases the parent's registry (whose handles it also empties); its own is made at first use.
  Registry& r = *g_locked_for_fork;
  for (auto& [key, entry] : r.files_) {
    for (StateHandle::Impl* handle : entry->handles) forget_after_fork(*handle);
    entry->mutex.unlock();
  }
  r.mutex_.unlock();
  r.fork_gate_.unlock();
}

EntryUse::EntryUse(const FileKey& key) noexcept : registry_(&Registry::instance()) {
  std::lock_guard guard(registry_->mutex());
  entry_ = registry_->acquire(key);
}

EntryUse::~EntryUse() {
  std::lock_guard guard(registry_->mutex());
  registry_->release(entry_);
}

}  // namespace klms::state::registry
