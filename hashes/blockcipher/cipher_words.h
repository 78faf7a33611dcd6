// Word helpers of CHAM, LEA and ARIA, which the Tandem-DM code above them uses too: rotations that are defined for
// every amount (taken mod 32, never a shift by 32), and the byte-order loads and stores of base/endian.h.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "base/endian.h"

// In their own namespace: other hash families define helpers with the same names.
namespace klms::hashes::words {

constexpr std::uint32_t rotl32(std::uint32_t x, unsigned n) noexcept { return std::rotl(x, static_cast<int>(n & 31)); }
constexpr std::uint32_t rotr32(std::uint32_t x, unsigned n) noexcept { return std::rotr(x, static_cast<int>(n & 31)); }

// Byte order: the project's one set of helpers (base/endian.h).
using endian::load_be32;
using endian::load_le32;
using endian::store_be32;
using endian::store_be64;
using endian::store_le32;

}  // namespace klms::hashes::words
