// One T for each process that uses this memory, found without taking any lock.
//
// A copy of a process (fork, or a raw clone that runs no pthread_atfork handler) inherits every
// mutex as it was: one held by another thread at that moment stays held forever in the copy, since
// that thread does not exist there. So process-local state guarded by a mutex must never be
// reached in a copy through the inherited object: mine() finds the caller's own T by its process
// token (base/process_token.h) in a list that only grows, through atomics, and makes one when the
// caller has none. The inherited ones are abandoned as they are, never locked, never freed in the
// copy (docs/state.md §15). state/registry.cpp does the same for the state registry.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/process_token.h"

namespace klms {

template <class T>
class PerProcess {
 public:
  PerProcess() = default;
  PerProcess(const PerProcess&) = delete;
  PerProcess& operator=(const PerProcess&) = delete;
  // Frees this process's own; another process's are its business (in a copy they are a copy's
  // abandoned memory, and a locked mutex among them must not be destroyed).
  ~PerProcess() {
    const std::uint64_t me = process_token();
    for (Node* n = head_.load(std::memory_order_acquire); n != nullptr;) {
      Node* next = n->next;
      if (n->owner == me) delete n;
      n = next;
    }
  }

  // The calling process's T, made (default-constructed) at its first call. Throws only what
  // allocating one throws.
  T& mine() {
    const std::uint64_t me = process_token();
    if (Node* n = find(me)) return n->value;
    auto* fresh = new Node;
    fresh->owner = me;
    Node* head = head_.load(std::memory_order_acquire);
    do {
      fresh->next = head;
    } while (!head_.compare_exchange_weak(head, fresh, std::memory_order_acq_rel));
    // Two threads of this process may both have pushed one: every thread uses the oldest.
    return find(me)->value;
  }

 private:
  struct Node {
    std::uint64_t owner = 0;
    Node* next = nullptr;
    T value;
  };

  Node* find(std::uint64_t owner) const noexcept {
    Node* oldest = nullptr;
    for (Node* n = head_.load(std::memory_order_acquire); n != nullptr; n = n->next) {
      if (n->owner == owner) oldest = n;
    }
    return oldest;
  }

  std::atomic<Node*> head_{nullptr};
};

}  // namespace klms
