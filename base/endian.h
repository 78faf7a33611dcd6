// Unaligned big- and little-endian loads and stores: the one set of byte-order helpers of the
// project (RFC 8554's u32str and friends, FIPS 180-4's big-endian words, FIPS 202's little-endian
// lanes, LSH's and the block ciphers' little-endian words). Header-only, no link dependency, so the
// hashes may use it too (docs/design.md "Libraries and layering").
//
// memcpy + __builtin_bswap compiles to one mov + bswap (or movbe) on x86-64. The helpers are always
// inlined, so no translation unit emits an out-of-line copy: one compiled for AVX-512 or SHA-NI can
// never lend its copy to a caller compiled for another CPU, as a plain `inline` function (one COMDAT
// copy, picked by the linker) could.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#define KLMS_ENDIAN_INLINE [[gnu::always_inline]] inline

namespace klms::endian {

KLMS_ENDIAN_INLINE std::uint16_t load_be16(const std::uint8_t* p) noexcept {
  std::uint16_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap16(v);
  return v;
}
KLMS_ENDIAN_INLINE std::uint32_t load_be32(const std::uint8_t* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
  return v;
}
KLMS_ENDIAN_INLINE std::uint64_t load_be64(const std::uint8_t* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v;
}
KLMS_ENDIAN_INLINE void store_be16(std::uint8_t* p, std::uint16_t v) noexcept {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap16(v);
  std::memcpy(p, &v, sizeof v);
}
KLMS_ENDIAN_INLINE void store_be32(std::uint8_t* p, std::uint32_t v) noexcept {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
  std::memcpy(p, &v, sizeof v);
}
KLMS_ENDIAN_INLINE void store_be64(std::uint8_t* p, std::uint64_t v) noexcept {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  std::memcpy(p, &v, sizeof v);
}

KLMS_ENDIAN_INLINE std::uint32_t load_le32(const std::uint8_t* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  return v;
}
KLMS_ENDIAN_INLINE std::uint64_t load_le64(const std::uint8_t* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}
KLMS_ENDIAN_INLINE void store_le32(std::uint8_t* p, std::uint32_t v) noexcept {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  std::memcpy(p, &v, sizeof v);
}
KLMS_ENDIAN_INLINE void store_le64(std::uint8_t* p, std::uint64_t v) noexcept {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  std::memcpy(p, &v, sizeof v);
}

}  // namespace klms::endian

#undef KLMS_ENDIAN_INLINE
