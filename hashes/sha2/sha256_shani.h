// SHA-256 with the Intel SHA extensions (sha256rnds2, sha256msg1, sha256msg2). Only call these after
// sha256_hw_supported() said yes: sha256_shani.cpp is compiled with -msha -msse4.1.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hashes/backend.h"

namespace klms::hashes::sha256::shani {

// How many messages hash_many compresses interleaved (the benchmark measures 1, 2, 3, 4 and 8).
inline constexpr std::size_t kInterleave = 4;

// Compresses `count` consecutive 64-byte blocks into the chaining value h (a..h, native words).
void compress_blocks(std::uint32_t* h, const std::uint8_t* blocks, std::size_t count) noexcept;

// Backend::hash_one and Backend::hash_many.
void hash_one(const PrefixState& prefix, const std::uint8_t* rest, std::size_t rest_len,
              std::uint8_t* out) noexcept;
void hash_many(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
               std::uint8_t* const* outs, std::size_t count) noexcept;

// outs[k] = SHA-256(ins[k]) for whole messages of len bytes, kInterleave at a time (sha256_midstate.h).
void digest_many(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                 std::size_t count) noexcept;

// hash_many with `width` (1, 2, 3, 4 or 8; anything else is taken as kInterleave) messages in flight:
// for the benchmark that picks kInterleave.
void hash_many_interleaved(std::size_t width, const PrefixState& prefix, const std::uint8_t* const* rests,
                           std::size_t rest_len, std::uint8_t* const* outs, std::size_t count) noexcept;

}  // namespace klms::hashes::sha256::shani
