// SHA-256 compressions of many 64-byte blocks from one shared chaining value: for hashes whose first
// block is the same for every message of a key, such as XMSS's PRF(SEED, ADRS) =
// SHA-256(toByte(3, 32) || SEED || ADRS) (RFC 8391 §5.1): its first block is fixed per key, so each
// PRF costs the one compression of ADRS and the padding (xmss/hasher.h). The caller pads the blocks;
// an output is the chaining value after its block, as 32 big-endian bytes (the digest when the block
// was the last).
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

namespace lanes {
// The AVX-512 kernel, only after the CPU check (sha256_midstate_avx512.cpp).
void compress_from_midstate_avx512(const std::uint32_t* midstate, const std::uint8_t* const* blocks,
                                   std::uint8_t* const* outs, std::size_t count) noexcept;
}  // namespace lanes

}  // namespace klms::hashes::sha256
