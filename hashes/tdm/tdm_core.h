// Tandem-DM (docs/tandem-dm.md "Compression function") over any 128-bit block cipher with a 256-bit key, in the cipher's own word
// order. A Cipher policy provides:
//   static void encrypt(const std::uint32_t key[8], std::uint32_t x[4]) noexcept;  // x = E_key(x)
//   static std::uint32_t load(const std::uint8_t*) noexcept;     // bytes -> word (LE or BE)
//   static void store(std::uint8_t*, std::uint32_t) noexcept;
//   static constexpr ChainValue kIv;
// Keeping G and H as words means no byte shuffling between the blocks of a message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hashes/blockcipher/cipher_words.h"

namespace klms::hashes::tdm {

using namespace words;

inline constexpr std::size_t kBlockBytes = 16;
inline constexpr std::size_t kDigestBytes = 32;

struct ChainValue {
  std::uint32_t g[4];
  std::uint32_t h[4];
};

// Per 16-byte block M (as words): W = E_{H||M}(G), V = E_{M||W}(H), G ^= W, H ^= V.
template <class Cipher>
inline void compress(ChainValue& cv, const std::uint32_t m[4]) noexcept {
  std::uint32_t key[8], w[4], v[4];
  for (int i = 0; i < 4; ++i) {
    key[i] = cv.h[i];
    key[4 + i] = m[i];
    w[i] = cv.g[i];
  }
  Cipher::encrypt(key, w);
  for (int i = 0; i < 4; ++i) {
    key[i] = m[i];
    key[4 + i] = w[i];
    v[i] = cv.h[i];
  }
  Cipher::encrypt(key, v);
  for (int i = 0; i < 4; ++i) {
    cv.g[i] ^= w[i];
    cv.h[i] ^= v[i];
  }
}

template <class Cipher>
inline void absorb_blocks(ChainValue& cv, const std::uint8_t* data, std::size_t blocks) noexcept {
  for (std::size_t b = 0; b < blocks; ++b, data += kBlockBytes) {
    const std::uint32_t m[4] = {Cipher::load(data), Cipher::load(data + 4), Cipher::load(data + 8),
                                Cipher::load(data + 12)};
    compress<Cipher>(cv, m);
  }
}

// Pads the last tail_len (< 16) bytes of a total_bytes-long message and absorbs the one or two
// blocks that result: tail || 0x80 || zeros || BE64(8 * total_bytes).
template <class Cipher>
inline void absorb_final(ChainValue& cv, const std::uint8_t* tail, std::size_t tail_len,
                         std::uint64_t total_bytes) noexcept {
  std::uint8_t last[2 * kBlockBytes] = {};
  if (tail_len != 0) std::memcpy(last, tail, tail_len);
  last[tail_len] = 0x80;
  const std::size_t blocks = tail_len + 9 <= kBlockBytes ? 1 : 2;
  store_be64(last + blocks * kBlockBytes - 8, total_bytes * 8);
  absorb_blocks<Cipher>(cv, last, blocks);
}

template <class Cipher>
inline void output(const ChainValue& cv, std::uint8_t out[kDigestBytes]) noexcept {
  for (int i = 0; i < 4; ++i) {
    Cipher::store(out + 4 * i, cv.g[i]);
    Cipher::store(out + 16 + 4 * i, cv.h[i]);
  }
}

// Hashes data as the continuation of a message whose first prior_bytes (a multiple of 16) are
// already absorbed in start. The output is written only after all input is read (it may overlap).
template <class Cipher>
inline void hash_continuation(ChainValue cv, std::uint64_t prior_bytes, const std::uint8_t* data, std::size_t len,
                              std::uint8_t out[kDigestBytes]) noexcept {
  const std::size_t full = len / kBlockBytes;
  absorb_blocks<Cipher>(cv, data, full);
  absorb_final<Cipher>(cv, data + full * kBlockBytes, len % kBlockBytes, prior_bytes + len);
  output<Cipher>(cv, out);
}

// The LMS hot path: a compile-time length Len of what follows the PriorBytes already absorbed in
// cv, so the padding and the block count are constants and the block loop unrolls.
template <class Cipher, std::size_t Len, std::uint64_t PriorBytes>
inline void hash_fixed(ChainValue cv, const std::uint8_t* data, std::uint8_t out[kDigestBytes]) noexcept {
  constexpr std::uint64_t kTotal = PriorBytes + Len;
  constexpr std::size_t kPadded = (Len + 9 + kBlockBytes - 1) / kBlockBytes * kBlockBytes;
  static_assert(PriorBytes % kBlockBytes == 0);
  std::uint8_t padded[kPadded] = {};
  std::memcpy(padded, data, Len);
  padded[Len] = 0x80;
  store_be64(padded + kPadded - 8, kTotal * 8);
  absorb_blocks<Cipher>(cv, padded, kPadded / kBlockBytes);
  output<Cipher>(cv, out);
}

// After the 16-byte identifier: the two LMS lengths get the fixed-length paths.
template <class Cipher>
inline void hash_after_prefix(const ChainValue& cv, const std::uint8_t* rest, std::size_t rest_len,
                              std::uint8_t out[kDigestBytes]) noexcept {
  switch (rest_len) {
    case 39:  // n = 32: I || q || i || j || tmp = 55 bytes
      hash_fixed<Cipher, 39, kBlockBytes>(cv, rest, out);
      return;
    case 31:  // n = 24: 47 bytes
      hash_fixed<Cipher, 31, kBlockBytes>(cv, rest, out);
      return;
    default:
      hash_continuation<Cipher>(cv, kBlockBytes, rest, rest_len, out);
  }
}

// Plain one-shot H(in), with the same fixed-length paths for the LMS lengths.
template <class Cipher>
inline void hash_message(const std::uint8_t* in, std::size_t len, std::uint8_t out[kDigestBytes]) noexcept {
  switch (len) {
    case 55:
      hash_fixed<Cipher, 55, 0>(Cipher::kIv, in, out);
      return;
    case 47:
      hash_fixed<Cipher, 47, 0>(Cipher::kIv, in, out);
      return;
    default:
      hash_continuation<Cipher>(Cipher::kIv, 0, in, len, out);
  }
}

template <class Cipher, int N>
inline void compress_interleaved(ChainValue (&cv)[N], const std::uint32_t (&m)[N][4]) noexcept {
  std::uint32_t key[N][8], w[N][4], v[N][4];
  const std::uint32_t* keys[N];
  std::uint32_t* blocks[N];
  for (int n = 0; n < N; ++n) {
    for (int i = 0; i < 4; ++i) {
      key[n][i] = cv[n].h[i];
      key[n][4 + i] = m[n][i];
      w[n][i] = cv[n].g[i];
    }
    keys[n] = key[n];
    blocks[n] = w[n];
  }
  Cipher::template encrypt_interleaved<N>(keys, blocks);
  for (int n = 0; n < N; ++n) {
    for (int i = 0; i < 4; ++i) {
      key[n][i] = m[n][i];
      key[n][4 + i] = w[n][i];
      v[n][i] = cv[n].h[i];
    }
    blocks[n] = v[n];
  }
  Cipher::template encrypt_interleaved<N>(keys, blocks);
  for (int n = 0; n < N; ++n) {
    for (int i = 0; i < 4; ++i) {
      cv[n].g[i] ^= w[n][i];
      cv[n].h[i] ^= v[n][i];
    }
  }
}

template <class Cipher, int N>
inline void hash_after_prefix_interleaved(const ChainValue& start, const std::uint8_t* const* rests,
                                          std::size_t rest_len, std::uint8_t* const* outs) noexcept {
  ChainValue cv[N];
  std::uint32_t m[N][4];
  for (int n = 0; n < N; ++n) cv[n] = start;
  const std::size_t full = rest_len / kBlockBytes, tail_len = rest_len % kBlockBytes;
  for (std::size_t b = 0; b < full; ++b) {
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < 4; ++i) m[n][i] = Cipher::load(rests[n] + b * kBlockBytes + 4 * i);
    compress_interleaved<Cipher, N>(cv, m);
  }
  std::uint8_t tails[N][2 * kBlockBytes] = {};
  const std::size_t tail_blocks = tail_len + 9 <= kBlockBytes ? 1 : 2;
  for (int n = 0; n < N; ++n) {
    if (tail_len != 0) std::memcpy(tails[n], rests[n] + full * kBlockBytes, tail_len);
    tails[n][tail_len] = 0x80;
    store_be64(tails[n] + tail_blocks * kBlockBytes - 8, (kBlockBytes + static_cast<std::uint64_t>(rest_len)) * 8);
  }
  for (std::size_t b = 0; b < tail_blocks; ++b) {
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < 4; ++i) m[n][i] = Cipher::load(tails[n] + b * kBlockBytes + 4 * i);
    compress_interleaved<Cipher, N>(cv, m);
  }
  for (int n = 0; n < N; ++n) output<Cipher>(cv[n], outs[n]);
}

template <class Cipher>
inline ChainValue absorb_identifier(const std::uint8_t identifier[kBlockBytes]) noexcept {
  ChainValue cv = Cipher::kIv;
  absorb_blocks<Cipher>(cv, identifier, 1);
  return cv;
}

// Streaming state: trivially copyable, so a context copy is memcpy.
struct Stream {
  ChainValue cv;
  std::uint64_t total_bytes;
  std::uint32_t buffered;
  std::uint8_t buffer[kBlockBytes];
};

inline void stream_start(Stream& s, const ChainValue& cv, std::uint64_t absorbed_bytes) noexcept {
  s.cv = cv;
  s.total_bytes = absorbed_bytes;
  s.buffered = 0;
  std::memset(s.buffer, 0, sizeof s.buffer);
}

template <class Cipher>
inline void stream_update(Stream& s, const std::uint8_t* data, std::size_t len) noexcept {
  if (len == 0) return;
  s.total_bytes += len;
  if (s.buffered != 0) {
    const std::size_t take = len < kBlockBytes - s.buffered ? len : kBlockBytes - s.buffered;
    std::memcpy(s.buffer + s.buffered, data, take);
    s.buffered += static_cast<std::uint32_t>(take);
    data += take;
    len -= take;
    if (s.buffered < kBlockBytes) return;
    absorb_blocks<Cipher>(s.cv, s.buffer, 1);
    s.buffered = 0;
  }
  // Keep whole blocks out of the buffer; a trailing full block may be absorbed now because the
  // padding always adds at least one byte, so no block is ever "the last one" until final.
  const std::size_t full = len / kBlockBytes;
  absorb_blocks<Cipher>(s.cv, data, full);
  data += full * kBlockBytes;
  len -= full * kBlockBytes;
  if (len != 0) std::memcpy(s.buffer, data, len);
  s.buffered = static_cast<std::uint32_t>(len);
}

template <class Cipher>
inline void stream_finish(Stream& s, std::uint8_t out[kDigestBytes]) noexcept {
  ChainValue cv = s.cv;
  absorb_final<Cipher>(cv, s.buffer, s.buffered, s.total_bytes);
  output<Cipher>(cv, out);
}

}  // namespace klms::hashes::tdm
