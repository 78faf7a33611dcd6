// Internal to the LSH SIMD files (lsh*_sse2/avx2/avx512.cpp); needs SSSE3.
//
// Reads a message that is (prefix || data || 0x80 || zeros) — the padded LSH input with the LMS
// identifier in front — as 16-byte chunks straight into registers: no copy of the message, no
// store-to-load forwarding stall. Only the chunk that holds the end of the data is special: it is
// loaded as the 16 bytes that end at the data's end and shifted into place with pshufb.
//
// Everything is in an anonymous namespace on purpose: each SIMD file compiles this header with its
// own -m flags, and internal linkage keeps the linker from mixing the copies.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

// The step functions must inline all the way into the block loop: a State passed through memory
// across a call costs store-forwarding stalls worth several steps.
#define KLMS_LSH_INLINE inline __attribute__((always_inline))

namespace klms::hashes::lsh_simd {
namespace {

inline __m128i loadu128(const std::uint8_t* p) noexcept { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

// loadu(kShiftWindow + s) is the pshufb control that shifts bytes down by s (zeros shifted in).
alignas(32) constexpr std::uint8_t kShiftWindow[32] = {0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,
                                                       11,   12,   13,   14,   15,   0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                                       0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
// loadu(kPadWindow + 16 - t) has 0x80 at byte t and zeros elsewhere.
alignas(32) constexpr std::uint8_t kPadWindow[32] = {0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                     0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

enum class ChunkKind : std::uint8_t { kPrefix, kData, kTail, kZero };

// The layout of one padded message; equal-length messages share it.
struct MessageShape {
  std::size_t prefix_len;  // 0 or 16
  std::size_t len;         // data bytes
  std::size_t total;       // prefix_len + len
  __m128i tail_shift;      // moves the data's last (total % 16) bytes to the chunk's start
  __m128i tail_pad;        // the 0x80 right after them

  ChunkKind kind(std::size_t pos) const noexcept {
    if (pos < prefix_len) return ChunkKind::kPrefix;  // pos == 0 and a 16-byte prefix
    if (pos + 16 <= total) return ChunkKind::kData;
    if (pos <= total) return ChunkKind::kTail;
    return ChunkKind::kZero;
  }
};

inline MessageShape make_shape(std::size_t prefix_len, std::size_t len) noexcept {
  MessageShape s;
  s.prefix_len = prefix_len;
  s.len = len;
  s.total = prefix_len + len;
  const std::size_t tail = s.total % 16;
  s.tail_shift = loadu128(kShiftWindow + 16 - tail);
  s.tail_pad = loadu128(kPadWindow + 16 - tail);
  return s;
}

// The chunk that holds the data's end and the 0x80 byte.
inline __m128i tail_chunk(const MessageShape& s, const std::uint8_t* data) noexcept {
  if (s.len >= 16) {
    return _mm_or_si128(_mm_shuffle_epi8(loadu128(data + s.len - 16), s.tail_shift), s.tail_pad);
  }
  // Fewer than 16 data bytes: they all sit in this chunk (the prefix, if any, fills the one before).
  alignas(16) std::uint8_t tmp[16] = {};
  if (s.len > 0) std::memcpy(tmp, data, s.len);
  tmp[s.len] = 0x80;
  return _mm_load_si128(reinterpret_cast<const __m128i*>(tmp));
}

// The chunk at message byte pos (a multiple of 16).
inline __m128i fetch_chunk(const MessageShape& s, ChunkKind kind, const std::uint8_t* prefix, const std::uint8_t* data,
                           std::size_t pos) noexcept {
  switch (kind) {
    case ChunkKind::kPrefix:
      return loadu128(prefix);
    case ChunkKind::kData:
      return loadu128(data + (pos - s.prefix_len));
    case ChunkKind::kTail:
      return tail_chunk(s, data);
    case ChunkKind::kZero:
      break;
  }
  return _mm_setzero_si128();
}

}  // namespace
}  // namespace klms::hashes::lsh_simd
