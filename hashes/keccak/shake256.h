// SHAKE256 with a 32-byte output (FIPS 202 §6.2), the hash of the LMS_SHAKE parameter sets.
#pragma once

#include <cstddef>
#include <cstdint>

#include <new>

#include "hashes/backend.h"
#include "hashes/keccak/keccak.h"

namespace klms::hashes::shake256 {

inline constexpr std::size_t kRateBytes = 136;  // 1600 - 2 * 256 bits
inline constexpr std::size_t kRateLanes = kRateBytes / 8;
inline constexpr std::uint8_t kDomainPadding = 0x1F;  // SHAKE's suffix 1111, then pad10*1's first 1

// The sponge while absorbing; `position` bytes of the current block have been XOR-ed in.
struct Sponge {
  keccak::State lanes;
  std::size_t position;
};

// What init_prefix keeps: I as bytes and as its two state lanes.
struct Prefix {
  std::uint64_t identifier_lanes[2];
  std::uint8_t identifier[16];
};
static_assert(sizeof(Prefix) <= sizeof(PrefixState));

inline const Prefix& prefix_of(const PrefixState& state) noexcept {
  return *std::launder(reinterpret_cast<const Prefix*>(state.bytes));
}

void absorb(Sponge& sponge, const std::uint8_t* data, std::size_t len) noexcept;
// Pads, permutes and writes the first 32 output bytes.
void finish(Sponge& sponge, std::uint8_t* out) noexcept;

// H(I || rest) for one message on the portable permutation.
void hash_one(const PrefixState& prefix, const std::uint8_t* rest, std::size_t rest_len, std::uint8_t* out) noexcept;

// hash_many on several states at once (shake256_many.cpp): only after the CPU check.
void hash_many_x4_avx2(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                       std::uint8_t* const* outs, std::size_t count) noexcept;
void hash_many_x8_avx512(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                         std::uint8_t* const* outs, std::size_t count) noexcept;

// outs[k] (32 bytes) = SHAKE256(ins[k], 32 bytes) for `count` whole messages of `len` bytes: what
// XMSS's n = 24 sets hash (their inputs share no 16-byte prefix). outs[k] may alias ins[k].
using DigestMany = void (*)(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                            std::size_t count) noexcept;
// The lanes the shake256 backend's hash_many uses on this CPU; null where that is the portable loop.
DigestMany digest_many() noexcept;
void digest_many_x4_avx2(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                         std::size_t count) noexcept;
void digest_many_x8_avx512(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                           std::size_t count) noexcept;

}  // namespace klms::hashes::shake256
