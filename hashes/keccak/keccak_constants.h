// Keccak-f[1600] step constants, derived at compile time from their definitions in FIPS 202 §3.2
// rather than typed in: the round constants from the rc LFSR (Algorithm 5), the ρ offsets from the
// (x, y) walk of Algorithm 2, and π from its index map.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "hashes/keccak/keccak.h"

namespace klms::hashes::keccak {

// rc(t) of Algorithm 5: an LFSR over GF(2)[x] / (x^8 + x^6 + x^5 + x^4 + 1).
constexpr bool round_constant_bit(std::size_t t) {
  unsigned r = 1;  // R = 10000000, bit i of r is R[i]
  for (std::size_t i = 0; i < t % 255; ++i) {
    r <<= 1;  // R = 0 || R
    if (r & 0x100) r ^= 0x171;  // R[0], R[4], R[5], R[6] ^= R[8]; Trunc8 drops R[8]
  }
  return (r & 1) != 0;
}

constexpr std::array<std::uint64_t, kRounds> make_round_constants() {
  std::array<std::uint64_t, kRounds> rc{};
  for (std::size_t round = 0; round < kRounds; ++round) {
    for (std::size_t j = 0; j <= 6; ++j) {
      if (round_constant_bit(j + 7 * round)) rc[round] |= std::uint64_t{1} << ((1u << j) - 1);
    }
  }
  return rc;
}

// ρ: lane (x, y) rotates by (t + 1)(t + 2) / 2 for the t at which the walk reaches it; lane (0, 0) by 0.
constexpr std::array<int, kLanes> make_rho_offsets() {
  std::array<int, kLanes> rho{};
  std::size_t x = 1, y = 0;
  for (std::size_t t = 0; t < 24; ++t) {
    rho[x + 5 * y] = static_cast<int>(((t + 1) * (t + 2) / 2) % 64);
    const std::size_t next_y = (2 * x + 3 * y) % 5;
    x = y;
    y = next_y;
  }
  return rho;
}

// π: A'[x, y] = A[(x + 3y) mod 5, x], i.e. lane (x, y) moves to (y, (2x + 3y) mod 5).
constexpr std::array<std::size_t, kLanes> make_pi_destinations() {
  std::array<std::size_t, kLanes> to{};
  for (std::size_t x = 0; x < 5; ++x) {
    for (std::size_t y = 0; y < 5; ++y) to[x + 5 * y] = y + 5 * ((2 * x + 3 * y) % 5);
  }
  return to;
}

inline constexpr std::array<std::uint64_t, kRounds> kRoundConstants = make_round_constants();
inline constexpr std::array<int, kLanes> kRhoOffsets = make_rho_offsets();
inline constexpr std::array<std::size_t, kLanes> kPiDestinations = make_pi_destinations();

// Spot checks against FIPS 202's own tables (the full check is the known-answer tests).
static_assert(kRoundConstants[0] == 0x0000000000000001 && kRoundConstants[1] == 0x0000000000008082);
static_assert(kRoundConstants[23] == 0x8000000080008008);
static_assert(kRhoOffsets[1] == 1 && kRhoOffsets[5 * 4 + 4] == 14);

}  // namespace klms::hashes::keccak
