// SHA-256 constants and padding from FIPS 180-4, shared by the portable and SHA-NI code.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/endian.h"

namespace klms::hashes::sha256 {

inline constexpr std::size_t kBlockBytes = 64;
// The message-length field closes the last block: a message of up to 55 bytes is one block.
inline constexpr std::size_t kLengthFieldBytes = 8;
inline constexpr std::size_t kMaxOneBlockBytes = kBlockBytes - kLengthFieldBytes - 1;

// FIPS 180-4 §4.2.2. Aligned so the SHA-NI code can load four at a time.
alignas(64) inline constexpr std::uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// FIPS 180-4 §5.3.3: H(0) = a, b, c, d, e, f, g, h.
alignas(32) inline constexpr std::uint32_t kInitialState[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

// FIPS 180-4 words are big-endian (base/endian.h).
using endian::load_be32;
using endian::store_be32;
using endian::store_be64;

// Writes the padding of a message whose last `tail_len` (< 64) bytes already sit at the start of
// `blocks` (128 bytes): 0x80, zeros, then the bit length. Returns how many blocks (1 or 2) to compress.
inline std::size_t pad_final_blocks(std::uint8_t* blocks, std::size_t tail_len,
                                    std::uint64_t total_bytes) noexcept {
  const std::size_t count = tail_len <= kMaxOneBlockBytes ? 1 : 2;
  blocks[tail_len] = 0x80;
  std::memset(blocks + tail_len + 1, 0, count * kBlockBytes - tail_len - 1 - kLengthFieldBytes);
  // 64-bit bit counter, so messages past 4 GiB (2^32 bits is only 512 MiB) are measured right.
  store_be64(blocks + count * kBlockBytes - kLengthFieldBytes, total_bytes << 3);
  return count;
}

}  // namespace klms::hashes::sha256
