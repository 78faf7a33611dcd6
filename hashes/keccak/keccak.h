// Keccak-f[1600] (FIPS 202 §3), the permutation under SHAKE256.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace klms::hashes::keccak {

inline constexpr std::size_t kLanes = 25;  // lane (x, y) is state[x + 5 * y]
inline constexpr std::size_t kRounds = 24;
using State = std::uint64_t[kLanes];

// The 24-round permutation on 64-bit lanes, portable C++.
void permute(State& state) noexcept;

// Lanes are little-endian in the byte string (FIPS 202 §B.1).
inline std::uint64_t load_le64(const std::uint8_t* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

inline void store_le64(std::uint8_t* p, std::uint64_t v) noexcept {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  std::memcpy(p, &v, sizeof v);
}

}  // namespace klms::hashes::keccak
