// SHA-256 compressions of many 64-byte blocks from one shared chaining value: for hashes whose first
// block is the same for every message of a key, such as XMSS's PRF(SEED, ADRS) =
// SHA-256(toByte(3, 32) || SEED || ADRS) (RFC 8391 §5.1): its first block is fixed per key, so each
// PRF costs the one compression of ADRS and the padding (xmss/hasher.h). The caller pads the blocks;
// an output is the chaining value after its block, as 32 big-endian bytes (the digest when the block
// was the last). And whole-message digests, many at once, for XMSS's n = 24 sets.
//
// The LMS paths (hash_many, chain_steps of hashes/backend.h) do not use this.
#pragma once

#include <cstddef>
#include <cstdint>

namespace klms::hashes::sha256 {

// The chaining value after `block` (64 bytes) from the initial value, in native words a..h.
void midstate_of(const std::uint8_t* block, std::uint32_t* out8) noexcept;

// outs[k] (32 bytes) = the chaining value after compressing blocks[k] (64 bytes) from `midstate`.
using CompressFromMidstate = void (*)(const std::uint32_t* midstate, const std::uint8_t* const* blocks,
                                      std::uint8_t* const* outs, std::size_t count) noexcept;

// The kernel for sha256-hw on this CPU: 16 AVX-512 lanes where its hash_many uses them, else SHA-NI
// one block at a time; null without SHA-NI (sha256-hw is then absent from the table).
CompressFromMidstate compress_from_midstate() noexcept;

// outs[k] (32 bytes) = SHA-256(ins[k]) for `count` whole messages of `len` bytes: what XMSS's n = 24
// sets hash (toByte(x, 4) || ...: no 16-byte prefix they share). outs[k] may alias ins[k].
using DigestMany = void (*)(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                            std::size_t count) noexcept;
// sha256-hw's: 16 AVX-512 lanes where its hash_many uses them, else SHA-NI with 4 messages
// interleaved; null without SHA-NI.
DigestMany digest_many() noexcept;

namespace lanes {
void digest_many_avx512(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                        std::size_t count) noexcept;
// The AVX-512 kernel, only after the CPU check (sha256_midstate_avx512.cpp).
void compress_from_midstate_avx512(const std::uint32_t* midstate, const std::uint8_t* const* blocks,
                                   std::uint8_t* const* outs, std::size_t count) noexcept;
}  // namespace lanes

}  // namespace klms::hashes::sha256
