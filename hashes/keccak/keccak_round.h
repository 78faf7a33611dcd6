// One Keccak-f[1600] round (FIPS 202 §3.2: θ, ρ, π, χ, ι) written once over a lane type, so the
// portable code (one state in 64-bit integers) and the SIMD code (one state per vector element)
// share it. Ops supplies xor2, xor5, rotl<n> and chi(a, b, c) = a ^ (~b & c).
#pragma once

#include <cstddef>
#include <utility>

#include "hashes/keccak/keccak_constants.h"

namespace klms::hashes::keccak {

template <class Ops, class Lane, std::size_t... L>
[[gnu::always_inline]] inline void round(Lane (&a)[kLanes], Lane round_constant, std::index_sequence<L...>) noexcept {
  // θ: every lane absorbs the parities of two neighbouring columns.
  Lane column[5];
  for (std::size_t x = 0; x < 5; ++x) column[x] = Ops::xor5(a[x], a[x + 5], a[x + 10], a[x + 15], a[x + 20]);
  Lane d[5];
  for (std::size_t x = 0; x < 5; ++x) {
    d[x] = Ops::xor2(column[(x + 4) % 5], Ops::template rotl<1>(column[(x + 1) % 5]));
  }
  // ρ and π together: each lane is rotated into its new position.
  Lane b[kLanes];
  ((b[kPiDestinations[L]] = Ops::template rotl<kRhoOffsets[L]>(Ops::xor2(a[L], d[L % 5]))), ...);
  // χ, row by row; then ι.
  ((a[L] = Ops::chi(b[L], b[L - L % 5 + (L + 1) % 5], b[L - L % 5 + (L + 2) % 5])), ...);
  a[0] = Ops::xor2(a[0], round_constant);
}

// All 24 rounds; RoundConstant(r) gives round r's constant as a Lane.
template <class Ops, class Lane, class RoundConstant>
[[gnu::always_inline]] inline void permute_lanes(Lane (&a)[kLanes], RoundConstant round_constant) noexcept {
  for (std::size_t r = 0; r < kRounds; ++r) round<Ops>(a, round_constant(r), std::make_index_sequence<kLanes>{});
}

}  // namespace klms::hashes::keccak
