// Word helpers shared by CHAM, LEA, ARIA and the Tandem-DM code: rotations that are defined for
// every amount (taken mod 32, never a shift by 32) and unaligned byte-order loads and stores.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

// In their own namespace: other hash families define helpers with the same names.
namespace klms::hashes::words {

constexpr std::uint32_t rotl32(std::uint32_t x, unsigned n) noexcept { return std::rotl(x, static_cast<int>(n & 31)); }
constexpr std::uint32_t rotr32(std::uint32_t x, unsigned n) noexcept { return std::rotr(x, static_cast<int>(n & 31)); }

inline std::uint32_t load_le32(const std::uint8_t* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}

inline std::uint32_t load_be32(const std::uint8_t* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
  return v;
}

inline void store_le32(std::uint8_t* p, std::uint32_t v) noexcept {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}

inline void store_be32(std::uint8_t* p, std::uint32_t v) noexcept {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
  std::memcpy(p, &v, 4);
}

inline void store_be64(std::uint8_t* p, std::uint64_t v) noexcept {
  store_be32(p, static_cast<std::uint32_t>(v >> 32));
  store_be32(p + 4, static_cast<std::uint32_t>(v));
}

}  // namespace klms::hashes::words
