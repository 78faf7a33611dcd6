// Streaming and plain one-shot SHA-256 over any compression function, so the portable and SHA-NI
// backends share the buffering and padding and differ only in how they compress blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "hashes/backend.h"
#include "hashes/sha2/sha256_common.h"
#include "hashes/sha2/sha256_prefix.h"

namespace klms::hashes::sha256 {

// Compresses `count` consecutive 64-byte blocks into the chaining value h (a..h, native words).
using CompressBlocks = void (*)(std::uint32_t* h, const std::uint8_t* blocks, std::size_t count) noexcept;

struct Stream {
  std::uint32_t h[8];
  std::uint64_t total_bytes;  // 64-bit counter: inputs past 4 GiB are fine
  std::size_t buffered;       // bytes waiting in buffer, always < 64
  std::uint8_t buffer[2 * kBlockBytes];  // twice the block, so padding never needs a second buffer
};
static_assert(sizeof(Stream) <= sizeof(StreamState) && alignof(Stream) <= alignof(StreamState));

inline Stream& stream_of(StreamState& state) noexcept {
  return *std::launder(reinterpret_cast<Stream*>(state.bytes));
}

inline void store_digest(const std::uint32_t* h, std::uint8_t* out) noexcept {
  for (std::size_t i = 0; i < 8; ++i) store_be32(out + 4 * i, h[i]);
}

template <CompressBlocks Compress>
struct Streaming {
  static void init(StreamState& state, const PrefixState& prefix) noexcept {
    Stream& s = *new (state.bytes) Stream{};
    std::memcpy(s.h, kInitialState, sizeof s.h);
    std::memcpy(s.buffer, prefix_of(prefix).identifier, kIdentifierBytes);
    s.buffered = kIdentifierBytes;
    s.total_bytes = kIdentifierBytes;
  }

  static void update(StreamState& state, const std::uint8_t* data, std::size_t len) noexcept {
    if (len == 0) return;  // data may be null then
    Stream& s = stream_of(state);
    s.total_bytes += len;
    if (s.buffered != 0) {
      const std::size_t take = len < kBlockBytes - s.buffered ? len : kBlockBytes - s.buffered;
      std::memcpy(s.buffer + s.buffered, data, take);
      s.buffered += take;
      data += take;
      len -= take;
      if (s.buffered < kBlockBytes) return;
      Compress(s.h, s.buffer, 1);
      s.buffered = 0;
    }
    if (len >= kBlockBytes) {
      Compress(s.h, data, len / kBlockBytes);
      data += len - len % kBlockBytes;
      len %= kBlockBytes;
    }
    if (len != 0) std::memcpy(s.buffer, data, len);
    s.buffered = len;
  }

  static void final(StreamState& state, std::uint8_t* out) noexcept {
    Stream& s = stream_of(state);
    Compress(s.h, s.buffer, pad_final_blocks(s.buffer, s.buffered, s.total_bytes));
    store_digest(s.h, out);
  }

  // Plain H(in): whole blocks straight from the input, the tail and padding on the stack.
  static void digest(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept {
    std::uint32_t h[8];
    std::memcpy(h, kInitialState, sizeof h);
    const std::size_t whole = len / kBlockBytes;
    if (whole != 0) Compress(h, in, whole);
    alignas(16) std::uint8_t last[2 * kBlockBytes];
    const std::size_t tail = len % kBlockBytes;
    if (tail != 0) std::memcpy(last, in + whole * kBlockBytes, tail);
    Compress(h, last, pad_final_blocks(last, tail, len));
    store_digest(h, out);
  }
};

}  // namespace klms::hashes::sha256
