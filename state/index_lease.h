// An index a signer may use exactly once, in the process that reserved it. Only the state store
// makes them, after the index is durably recorded as consumed (docs/state.md invariant 2), so no
// code path can sign with an index that did not come from a reservation. Move-only; signing
// consumes it. A copy of the process (fork, clone) holds a copy of the lease but cannot use it:
// the lease records its process's token (base/process_token.h).
#pragma once

#include <cstdint>

#include "base/process_token.h"

namespace klms::state {

class StateHandle;

class IndexLease {
 public:
  IndexLease(IndexLease&& other) noexcept
      : index_(other.index_), owner_(other.owner_), valid_(other.valid_) { other.valid_ = false; }
  IndexLease& operator=(IndexLease&& other) noexcept {
    index_ = other.index_;
    owner_ = other.owner_;
    valid_ = other.valid_;
    other.valid_ = false;
    return *this;
  }
  IndexLease(const IndexLease&) = delete;
  IndexLease& operator=(const IndexLease&) = delete;

  bool valid() const noexcept { return valid_; }
  // False in any process but the one that reserved the index.
  bool owned_by_this_process() const noexcept { return owner_ == process_token(); }
  std::uint64_t index() const noexcept { return index_; }
  // Marks the lease used; returns the index. A second call returns false through `valid()`.
  std::uint64_t consume() noexcept {
    valid_ = false;
    return index_;
  }

 private:
  friend class StateHandle;
  IndexLease(std::uint64_t index, std::uint64_t owner) noexcept : index_(index), owner_(owner), valid_(true) {}

  std::uint64_t index_ = 0;
  std::uint64_t owner_ = 0;
  bool valid_ = false;
};

}  // namespace klms::state
