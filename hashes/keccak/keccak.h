// Keccak-f[1600] (FIPS 202 §3), the permutation under SHAKE256.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/endian.h"

namespace klms::hashes::keccak {

inline constexpr std::size_t kLanes = 25;  // lane (x, y) is state[x + 5 * y]
inline constexpr std::size_t kRounds = 24;
using State = std::uint64_t[kLanes];

// The 24-round permutation on 64-bit lanes, portable C++.
void permute(State& state) noexcept;

// Lanes are little-endian in the byte string (FIPS 202 §B.1).
using endian::load_le64;
using endian::store_le64;

}  // namespace klms::hashes::keccak
