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

template <typename T>
KLMS_ENDIAN_INLINE T byteswap(T v) noexcept {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  if constexpr (sizeof(T) == 2) {
    return __builtin_bswap16(v);
  } else if constexpr (sizeof(T) == 4) {
    return __builtin_bswap32(v);
  } else {
    return __builtin_bswap64(v);
  }
}

// The unsigned integer T stored at p (any alignment) in byte order `Order`.
template <typename T, std::endian Order>
KLMS_ENDIAN_INLINE T load(const std::uint8_t* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native != Order) v = byteswap(v);
  return v;
}
template <typename T, std::endian Order>
KLMS_ENDIAN_INLINE void store(std::uint8_t* p, T v) noexcept {
  if constexpr (std::endian::native != Order) v = byteswap(v);
  std::memcpy(p, &v, sizeof v);
}

inline constexpr std::endian kBig = std::endian::big;
inline constexpr std::endian kLittle = std::endian::little;

KLMS_ENDIAN_INLINE std::uint16_t load_be16(const std::uint8_t* p) noexcept { return load<std::uint16_t, kBig>(p); }
KLMS_ENDIAN_INLINE std::uint32_t load_be32(const std::uint8_t* p) noexcept { return load<std::uint32_t, kBig>(p); }
KLMS_ENDIAN_INLINE std::uint64_t load_be64(const std::uint8_t* p) noexcept { return load<std::uint64_t, kBig>(p); }
KLMS_ENDIAN_INLINE std::uint32_t load_le32(const std::uint8_t* p) noexcept { return load<std::uint32_t, kLittle>(p); }
KLMS_ENDIAN_INLINE std::uint64_t load_le64(const std::uint8_t* p) noexcept { return load<std::uint64_t, kLittle>(p); }
KLMS_ENDIAN_INLINE void store_be16(std::uint8_t* p, std::uint16_t v) noexcept { store<std::uint16_t, kBig>(p, v); }
KLMS_ENDIAN_INLINE void store_be32(std::uint8_t* p, std::uint32_t v) noexcept { store<std::uint32_t, kBig>(p, v); }
KLMS_ENDIAN_INLINE void store_be64(std::uint8_t* p, std::uint64_t v) noexcept { store<std::uint64_t, kBig>(p, v); }
KLMS_ENDIAN_INLINE void store_le32(std::uint8_t* p, std::uint32_t v) noexcept { store<std::uint32_t, kLittle>(p, v); }
KLMS_ENDIAN_INLINE void store_le64(std::uint8_t* p, std::uint64_t v) noexcept { store<std::uint64_t, kLittle>(p, v); }

}  // namespace klms::endian

#undef KLMS_ENDIAN_INLINE
