// How many members a Backend has, counted by the compiler. A wrapper that forwards a backend's
// entries (the study's counting backend, its variant backends) checks this against the members it
// handles, so that an entry added to Backend later fails to compile there until the wrapper handles
// it, instead of passing through to the real backend unseen (hashes/backend.h).
#pragma once

#include <cstddef>

#include "hashes/backend.h"

namespace klms::hashes {
namespace detail {

// Converts to any member type, so that T{AnyMember{}, ...} compiles exactly when T has at least
// that many members (Backend is an aggregate without arrays or bases: no brace elision to fool it).
struct AnyMember {
  template <class T>
  constexpr operator T() const noexcept;  // NOLINT(google-explicit-constructor): only unevaluated
};

template <class T, class... Members>
consteval std::size_t aggregate_member_count() noexcept {
  if constexpr (requires { T{Members{}..., AnyMember{}}; }) {
    return aggregate_member_count<T, Members..., AnyMember>();
  } else {
    return sizeof...(Members);
  }
}

}  // namespace detail

inline constexpr std::size_t kBackendMembers = detail::aggregate_member_count<Backend>();

}  // namespace klms::hashes
