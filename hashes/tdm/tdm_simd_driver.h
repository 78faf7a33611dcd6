// The lane-parallel Tandem-DM driver shared by the AVX2 and AVX-512 files. One 32-bit lane carries
// one message, so a register holds word j of Ops::kLanes messages and the cipher code reads like the
// scalar one. Ops (see tdm_simd_avx2.h, tdm_simd_avx512.h) provides:
//   Vec, kLanes, set1(u32), load_block_words(block pointers, Vec m[4]), store_block_words(w, outs, offset).
// Only included from files compiled for the instruction set of their Ops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hashes/backend.h"
#include "hashes/tdm/tdm_core.h"
#include "hashes/tdm/tdm_lanes.h"

namespace klms::hashes::tdm::simd {

// Ops::kLanes messages I || rests[k] from the saved chain value. LaneCompress provides
//   static void compress(Vec g[4], Vec h[4], const Vec m[4]) noexcept;
// All input is read before any output is written, so outs[k] may alias rests[k].
template <class Ops, class LaneCompress>
inline void hash_group(const ChainValue& start, const std::uint8_t* const* rests, std::size_t rest_len,
                       std::uint8_t* const* outs) noexcept {
  using Vec = typename Ops::Vec;
  constexpr std::size_t kLanes = Ops::kLanes;
  Vec g[4], h[4], m[4];
  for (int i = 0; i < 4; ++i) {
    g[i] = Ops::set1(start.g[i]);
    h[i] = Ops::set1(start.h[i]);
  }
  const std::size_t full = rest_len / kBlockBytes, tail_len = rest_len % kBlockBytes;
  const std::uint8_t* block[kLanes];
  for (std::size_t b = 0; b < full; ++b) {
    for (std::size_t k = 0; k < kLanes; ++k) block[k] = rests[k] + b * kBlockBytes;
    Ops::load_block_words(block, m);
    LaneCompress::compress(g, h, m);
  }
  // The padded tail: one or two blocks, the same shape in every lane (equal lengths).
  alignas(64) std::uint8_t tails[kLanes][2 * kBlockBytes];
  const std::size_t tail_blocks = tail_len + 9 <= kBlockBytes ? 1 : 2;
  // Big-endian bit length (base/endian.h's helpers are always inlined: no out-of-line copy compiled
  // with this file's extra instruction sets can reach other code).
  const std::uint64_t bit_length = (kBlockBytes + static_cast<std::uint64_t>(rest_len)) * 8;
  for (std::size_t k = 0; k < kLanes; ++k) {
    std::memset(tails[k], 0, sizeof tails[k]);
    if (tail_len != 0) std::memcpy(tails[k], rests[k] + full * kBlockBytes, tail_len);
    tails[k][tail_len] = 0x80;
    endian::store_be64(tails[k] + tail_blocks * kBlockBytes - 8, bit_length);
  }
  for (std::size_t b = 0; b < tail_blocks; ++b) {
    for (std::size_t k = 0; k < kLanes; ++k) block[k] = tails[k] + b * kBlockBytes;
    Ops::load_block_words(block, m);
    LaneCompress::compress(g, h, m);
  }
  Ops::store_block_words(g, outs, 0);
  Ops::store_block_words(h, outs, kBlockBytes);
}

// hash_many over full groups. The last, partial group fills its idle lanes with its first message
// and sends their outputs to scratch when it has at least min_lanes_worth_group messages (below
// that, `smaller` hashes them: a narrower implementation or one by one).
template <class Ops, class LaneCompress>
inline void hash_many(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                      std::uint8_t* const* outs, std::size_t count, HashManySignature* smaller,
                      std::size_t min_lanes_worth_group) noexcept {
  constexpr std::size_t kLanes = Ops::kLanes;
  ChainValue start;
  std::memcpy(&start, prefix.bytes, sizeof start);
  std::size_t k = 0;
  for (; k + kLanes <= count; k += kLanes) hash_group<Ops, LaneCompress>(start, rests + k, rest_len, outs + k);
  const std::size_t left = count - k;
  if (left == 0) return;
  if (left < min_lanes_worth_group) {
    smaller(prefix, rests + k, rest_len, outs + k, left);
    return;
  }
  alignas(64) std::uint8_t scratch[kLanes][kDigestBytes];
  const std::uint8_t* in[kLanes];
  std::uint8_t* out[kLanes];
  for (std::size_t lane = 0; lane < kLanes; ++lane) {
    in[lane] = lane < left ? rests[k + lane] : rests[k];
    out[lane] = lane < left ? outs[k + lane] : scratch[lane];
  }
  hash_group<Ops, LaneCompress>(start, in, rest_len, out);
}

}  // namespace klms::hashes::tdm::simd
