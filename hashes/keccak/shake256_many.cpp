// SHAKE256 hash_many on Width Keccak states at once (one per SIMD element). Only the permutation is
// vector code (keccak_avx2.cpp, keccak_avx512.cpp); this file just lays the messages' blocks out
// lane by lane, so it needs no special compiler flags.
#include <cstring>

#include "hashes/keccak/keccak_simd.h"
#include "hashes/keccak/shake256.h"

namespace klms::hashes::shake256 {
namespace {

// Bytes [136 b, 136 b + 136) of I || rest (PrefixLen 16) or of rest alone (PrefixLen 0: whole
// messages, digest_many), with SHAKE's padding when it is the last block.
template <std::size_t PrefixLen>
void fill_block(std::uint8_t* block, const Prefix& p, const std::uint8_t* rest,
                std::size_t rest_len, std::size_t b, bool last) noexcept {
  const std::size_t total = PrefixLen + rest_len;
  const std::size_t begin = b * kRateBytes;
  const std::size_t end = begin + kRateBytes < total ? begin + kRateBytes : total;
  std::size_t filled = 0;
  if (begin < PrefixLen) {
    std::memcpy(block, p.identifier, PrefixLen);
    filled = PrefixLen;
  }
  if (end > begin + filled) std::memcpy(block + filled, rest + (begin + filled - PrefixLen), end - begin - filled);
  std::memset(block + (end - begin), 0, kRateBytes - (end - begin));
  if (last) {
    block[total - begin] ^= kDomainPadding;
    block[kRateBytes - 1] ^= 0x80;
  }
}

// H(I || rests[k]) (or H(rests[k]), PrefixLen 0) for exactly Width messages. Every input is
// absorbed before any output is written, so outs[k] may alias rests[k]. Always inlined so the LMS
// one-block lengths get constant copies.
template <std::size_t Width, void (*Permute)(keccak::MultiState<Width>&) noexcept, std::size_t PrefixLen = kIdentifierBytes>
[[gnu::always_inline]] inline void hash_width(const Prefix& p, const std::uint8_t* const* rests, std::size_t rest_len,
                                               std::uint8_t* const* outs) noexcept {
  keccak::MultiState<Width> s{};
  const std::size_t blocks = (PrefixLen + rest_len) / kRateBytes + 1;
  alignas(8) std::uint8_t block[kRateBytes];
  for (std::size_t b = 0; b < blocks; ++b) {
    const bool last = b + 1 == blocks;
    for (std::size_t k = 0; k < Width; ++k) {
      const std::uint8_t* source = block;
      if ((PrefixLen != 0 && b == 0) || last) {
        fill_block<PrefixLen>(block, p, rests[k], rest_len, b, last);
      } else {
        source = rests[k] + (b * kRateBytes - PrefixLen);
      }
      for (std::size_t i = 0; i < kRateLanes; ++i) s.lanes[i][k] ^= keccak::load_le64(source + 8 * i);
    }
    Permute(s);
  }
  for (std::size_t k = 0; k < Width; ++k) {
    for (std::size_t i = 0; i < kOutputBytes / 8; ++i) keccak::store_le64(outs[k] + 8 * i, s.lanes[i][k]);
  }
}

template <std::size_t Width, void (*Permute)(keccak::MultiState<Width>&) noexcept>
void hash_group(const Prefix& p, const std::uint8_t* const* rests, std::size_t rest_len,
                std::uint8_t* const* outs) noexcept {
  switch (rest_len) {  // the LMS one-block inputs: chains and PRF (n = 32, 24), leaves
    case 39: return hash_width<Width, Permute>(p, rests, 39, outs);
    case 31: return hash_width<Width, Permute>(p, rests, 31, outs);
    case 38: return hash_width<Width, Permute>(p, rests, 38, outs);
    case 30: return hash_width<Width, Permute>(p, rests, 30, outs);
    default: return hash_width<Width, Permute>(p, rests, rest_len, outs);
  }
}

// Whole groups of Width; a remainder of two or more still goes through the lanes (the spare lanes
// hash the group's first message again into scratch), a single message through the portable code.
template <std::size_t Width, void (*Permute)(keccak::MultiState<Width>&) noexcept>
void hash_many_lanes(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                     std::uint8_t* const* outs, std::size_t count) noexcept {
  const Prefix& p = prefix_of(prefix);
  std::size_t k = 0;
  for (; count - k >= Width; k += Width) hash_group<Width, Permute>(p, rests + k, rest_len, outs + k);
  const std::size_t left = count - k;
  if (left == 1) {
    hash_one(prefix, rests[k], rest_len, outs[k]);
  } else if (left > 1) {
    const std::uint8_t* group_rests[Width];
    std::uint8_t* group_outs[Width];
    std::uint8_t scratch[kOutputBytes];
    for (std::size_t i = 0; i < Width; ++i) {
      group_rests[i] = rests[k + (i < left ? i : 0)];
      group_outs[i] = i < left ? outs[k + i] : scratch;
    }
    hash_group<Width, Permute>(p, group_rests, rest_len, group_outs);
  }
}

// Whole messages (no I): groups of Width, the rest padded as hash_many_lanes pads it.
template <std::size_t Width, void (*Permute)(keccak::MultiState<Width>&) noexcept>
void digest_many_lanes(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                       std::size_t count) noexcept {
  const Prefix none{};
  std::size_t k = 0;
  for (; count - k >= Width; k += Width) hash_width<Width, Permute, 0>(none, ins + k, len, outs + k);
  const std::size_t left = count - k;
  if (left == 0) return;
  const std::uint8_t* group_ins[Width];
  std::uint8_t* group_outs[Width];
  std::uint8_t scratch[kOutputBytes];
  for (std::size_t i = 0; i < Width; ++i) {
    group_ins[i] = ins[k + (i < left ? i : 0)];
    group_outs[i] = i < left ? outs[k + i] : scratch;
  }
  hash_width<Width, Permute, 0>(none, group_ins, len, group_outs);
}

}  // namespace

void digest_many_x4_avx2(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                         std::size_t count) noexcept {
  digest_many_lanes<4, keccak::permute_x4_avx2>(ins, len, outs, count);
}

void digest_many_x8_avx512(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                           std::size_t count) noexcept {
  digest_many_lanes<8, keccak::permute_x8_avx512>(ins, len, outs, count);
}

void hash_many_x4_avx2(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                       std::uint8_t* const* outs, std::size_t count) noexcept {
  hash_many_lanes<4, keccak::permute_x4_avx2>(prefix, rests, rest_len, outs, count);
}

void hash_many_x8_avx512(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                         std::uint8_t* const* outs, std::size_t count) noexcept {
  hash_many_lanes<8, keccak::permute_x8_avx512>(prefix, rests, rest_len, outs, count);
}

}  // namespace klms::hashes::shake256
