// The SHA-256 round and message schedule in plain C++ (FIPS 180-4 §6.2.2), written so that the
// compiler unrolls everything and keeps the working variables in registers.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "hashes/sha2/sha256_common.h"

namespace klms::hashes::sha256 {

inline std::uint32_t big_sigma0(std::uint32_t x) noexcept {
  return std::rotr(x, 2) ^ std::rotr(x, 13) ^ std::rotr(x, 22);
}
inline std::uint32_t big_sigma1(std::uint32_t x) noexcept {
  return std::rotr(x, 6) ^ std::rotr(x, 11) ^ std::rotr(x, 25);
}
inline std::uint32_t small_sigma0(std::uint32_t x) noexcept {
  return std::rotr(x, 7) ^ std::rotr(x, 18) ^ (x >> 3);
}
inline std::uint32_t small_sigma1(std::uint32_t x) noexcept {
  return std::rotr(x, 17) ^ std::rotr(x, 19) ^ (x >> 10);
}
// Ch and Maj in forms with one operation fewer; (a ^ b) of one round is (b ^ c) of the next, which
// the compiler reuses once the rounds are unrolled.
inline std::uint32_t choose(std::uint32_t e, std::uint32_t f, std::uint32_t g) noexcept {
  return g ^ (e & (f ^ g));
}
inline std::uint32_t majority(std::uint32_t a, std::uint32_t b, std::uint32_t c) noexcept {
  return ((a ^ b) & (b ^ c)) ^ b;
}

// Working variables in "slot" order: instead of shifting a..h every round, round T reads a from
// slot (0 - T) mod 8, b from (1 - T) mod 8, ..., and writes the new a into h's slot and the new e
// into d's. After a multiple of 8 rounds slot 0 holds a again.
using Slots = std::uint32_t[8];
using Schedule = std::uint32_t[16];  // W[t] lives in w[t % 16]

template <std::size_t T>
[[gnu::always_inline]] inline void round(Slots& v, Schedule& w) noexcept {
  constexpr std::size_t a = (8 - T % 8) % 8, b = (a + 1) % 8, c = (a + 2) % 8, d = (a + 3) % 8;
  constexpr std::size_t e = (a + 4) % 8, f = (a + 5) % 8, g = (a + 6) % 8, h = (a + 7) % 8;
  if constexpr (T >= 16) {
    w[T % 16] += small_sigma1(w[(T - 2) % 16]) + w[(T - 7) % 16] + small_sigma0(w[(T - 15) % 16]);
  }
  const std::uint32_t t1 = v[h] + big_sigma1(v[e]) + choose(v[e], v[f], v[g]) + kRoundConstants[T] + w[T % 16];
  const std::uint32_t t2 = big_sigma0(v[a]) + majority(v[a], v[b], v[c]);
  v[d] += t1;
  v[h] = t1 + t2;
}

template <std::size_t First, std::size_t... T>
[[gnu::always_inline]] inline void rounds_from(Slots& v, Schedule& w, std::index_sequence<T...>) noexcept {
  (round<First + T>(v, w), ...);
}

// Rounds First .. Last-1, fully unrolled.
template <std::size_t First, std::size_t Last>
[[gnu::always_inline]] inline void rounds(Slots& v, Schedule& w) noexcept {
  rounds_from<First>(v, w, std::make_index_sequence<Last - First>{});
}

}  // namespace klms::hashes::sha256
