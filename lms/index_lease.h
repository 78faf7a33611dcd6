// An index a signer may use exactly once. Only the state store makes them, after the index is
// durably recorded as consumed (STATE.md invariant 2), so no code path can sign with an index that
// did not come from a reservation. Move-only; signing consumes it.
#pragma once

#include <cstdint>

namespace klms::lms {

class StateHandle;

class IndexLease {
 public:
  IndexLease(IndexLease&& other) noexcept : index_(other.index_), valid_(other.valid_) { other.valid_ = false; }
  IndexLease& operator=(IndexLease&& other) noexcept {
    index_ = other.index_;
    valid_ = other.valid_;
    other.valid_ = false;
    return *this;
  }
  IndexLease(const IndexLease&) = delete;
  IndexLease& operator=(const IndexLease&) = delete;

  bool valid() const noexcept { return valid_; }
  std::uint64_t index() const noexcept { return index_; }
  // Marks the lease used; returns the index. A second call returns false through `valid()`.
  std::uint64_t consume() noexcept {
    valid_ = false;
    return index_;
  }

 private:
  friend class StateHandle;
  explicit IndexLease(std::uint64_t index) noexcept : index_(index), valid_(true) {}

  std::uint64_t index_ = 0;
  bool valid_ = false;
};

}  // namespace klms::lms
