// What a SHA-256 backend keeps after absorbing the 16-byte identifier I (both backends share it).
//
// I is the first four message words, and rounds 0-3 of the first block read only those words and the
// initial value, so init_prefix runs them once per key: every H(I || rest) then starts at round 4.
#pragma once

#include <cstdint>
#include <new>

#include "hashes/backend.h"

namespace klms::hashes::sha256 {

struct Prefix {
  // The state after rounds 0-3 in SHA-NI register order: {F, E, B, A} and {H, G, D, C}.
  alignas(16) std::uint32_t abef[4];
  alignas(16) std::uint32_t cdgh[4];
  // W0..W3 (I read as big-endian words), index 0 first: the SHA-NI schedule's first vector.
  alignas(16) std::uint32_t first_words[4];
  // The same state in the portable code's slot order at round 4 (see sha256_rounds.h).
  std::uint32_t slots[8];
  std::uint8_t identifier[16];  // for streaming, which just starts from the initial value
};
static_assert(sizeof(Prefix) <= sizeof(PrefixState) && alignof(Prefix) <= alignof(PrefixState));

void init_prefix(PrefixState& state, const std::uint8_t* identifier) noexcept;

inline const Prefix& prefix_of(const PrefixState& state) noexcept {
  return *std::launder(reinterpret_cast<const Prefix*>(state.bytes));
}

}  // namespace klms::hashes::sha256
