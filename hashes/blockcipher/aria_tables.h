// ARIA's S-boxes and 32-bit round tables, built at compile time from their algebraic definitions
// (RFC 5794 section 2.4.2): SB1 is the AES S-box, SB2(x) = B * x^247 xor 0xE2 in GF(2^8) with the
// AES polynomial, SB3 = SB1^-1, SB4 = SB2^-1. The tests check the tables against RFC values.
#pragma once

#include <array>
#include <cstdint>

namespace klms::hashes::aria {

namespace detail {

struct FieldTables {
  std::array<std::uint8_t, 256> exp{};  // exp[i] = 3^i
  std::array<std::uint8_t, 256> log{};
};

constexpr FieldTables make_field_tables() {
  FieldTables t;
  unsigned x = 1;
  for (unsigned i = 0; i < 255; ++i) {
    t.exp[i] = static_cast<std::uint8_t>(x);
    t.log[x] = static_cast<std::uint8_t>(i);
    x ^= (x << 1) ^ ((x & 0x80) ? 0x11b : 0);  // multiply by 3 = x + 1
  }
  t.exp[255] = t.exp[0];
  return t;
}

constexpr std::uint8_t field_power(const FieldTables& t, std::uint8_t x, unsigned e) {
  if (x == 0) return 0;
  return t.exp[(t.log[x] * e) % 255];
}

// Multiplies the bit vector x by the GF(2) matrix whose column k is columns[k].
constexpr std::uint8_t apply_matrix(const std::uint8_t (&columns)[8], std::uint8_t x) {
  std::uint8_t y = 0;
  for (int k = 0; k < 8; ++k)
    if ((x >> k) & 1) y ^= columns[k];
  return y;
}

constexpr std::uint8_t rotl8(std::uint8_t x, int n) {
  return static_cast<std::uint8_t>((x << n) | (x >> (8 - n)));
}

struct SBoxes {
  std::array<std::uint8_t, 256> sb1{}, sb2{}, sb3{}, sb4{};
};

constexpr SBoxes make_sboxes() {
  // ARIA's affine matrix B for SB2, column k = B * (bit k).
  constexpr std::uint8_t kB[8] = {0xac, 0xc5, 0x12, 0xcf, 0x5b, 0x5f, 0x85, 0xee};
  const FieldTables field = make_field_tables();
  SBoxes s;
  for (unsigned v = 0; v < 256; ++v) {
    const auto x = static_cast<std::uint8_t>(v);
    const std::uint8_t inverse = field_power(field, x, 254);
    const auto aes = static_cast<std::uint8_t>(inverse ^ rotl8(inverse, 1) ^ rotl8(inverse, 2) ^
                                               rotl8(inverse, 3) ^ rotl8(inverse, 4) ^ 0x63);
    s.sb1[v] = aes;
    s.sb2[v] = static_cast<std::uint8_t>(apply_matrix(kB, field_power(field, x, 247)) ^ 0xe2);
  }
  for (unsigned v = 0; v < 256; ++v) {
    s.sb3[s.sb1[v]] = static_cast<std::uint8_t>(v);
    s.sb4[s.sb2[v]] = static_cast<std::uint8_t>(v);
  }
  return s;
}

// Table for byte position p (0 = most significant) of a big-endian state word: the S-box output
// copied into the other three byte positions. Together with the word mixing in aria.h this is
// substitution plus ARIA's diffusion layer A.
constexpr std::array<std::uint32_t, 256> spread(const std::array<std::uint8_t, 256>& box, int position) {
  constexpr std::uint32_t kPattern[4] = {0x00010101, 0x01000101, 0x01010001, 0x01010100};
  std::array<std::uint32_t, 256> t{};
  for (unsigned v = 0; v < 256; ++v) t[v] = box[v] * kPattern[position];
  return t;
}

}  // namespace detail

inline constexpr detail::SBoxes kSBoxes = detail::make_sboxes();

struct RoundTables {
  std::array<std::uint32_t, 256> t0, t1, t2, t3;
};

// Odd rounds (substitution layer SL1: SB1, SB2, SB3, SB4 by byte position mod 4).
alignas(64) inline constexpr RoundTables kOddTables = {
    detail::spread(kSBoxes.sb1, 0), detail::spread(kSBoxes.sb2, 1), detail::spread(kSBoxes.sb3, 2),
    detail::spread(kSBoxes.sb4, 3)};
// Even rounds (SL2: SB3, SB4, SB1, SB2).
alignas(64) inline constexpr RoundTables kEvenTables = {
    detail::spread(kSBoxes.sb3, 0), detail::spread(kSBoxes.sb4, 1), detail::spread(kSBoxes.sb1, 2),
    detail::spread(kSBoxes.sb2, 3)};

}  // namespace klms::hashes::aria
