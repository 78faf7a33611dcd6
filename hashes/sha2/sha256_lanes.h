// Multi-buffer SHA-256: one message per 32-bit lane of a vector register, 16 messages at once with
// AVX-512 (sha256_avx512.cpp) or 8 with AVX2 (sha256_avx2.cpp), for the sha256-hw backend's hash_many.
//
// SHA-NI is bound by sha256rnds2's throughput; lanes instead spend ordinary vector instructions on the
// round (AVX-512: vprord for the rotations, vpternlogd for Ch, Maj and the three-way XORs), which pays
// off when the vector units are wide and SHA-NI is slow: sha256_hw.cpp decides per kind of CPU.
//
// This header holds the declarations and the ISA-independent kernel. The kernel is a template over an
// `Ops` type that each ISA file defines in its own anonymous namespace, so every instantiation has
// internal linkage and code compiled with -mavx512f can never be picked by the linker for a caller on
// another CPU. For the same reason the kernel calls no external inline helper that could be emitted
// out of line (pad_final_blocks): it has its own; the byte-order helpers of base/endian.h are always
// inlined, never emitted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "hashes/backend.h"
#include "hashes/sha2/sha256_common.h"
#include "hashes/sha2/sha256_prefix.h"
#include "hashes/sha2/sha256_shani.h"

namespace klms::hashes::sha256::lanes {

inline constexpr std::size_t kAvx512Lanes = 16;
inline constexpr std::size_t kAvx2Lanes = 8;

// What to do with the last count % lanes messages.
enum class Tail : std::uint8_t {
  kPadLanes,  // one more full-width group; the unused lanes rehash a real message into a scratch output
  kShaNi,     // SHA-NI interleaved hash_many (needs SHA-NI)
  kAuto,      // whichever measured faster for that many messages (needs SHA-NI)
};

// Backend::hash_many with Tail::kAuto. Only after the CPU check: AVX-512 F+VL (or AVX2) and SHA-NI.
void hash_many_avx512(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                      std::uint8_t* const* outs, std::size_t count) noexcept;
void hash_many_avx2(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                    std::uint8_t* const* outs, std::size_t count) noexcept;

// Backend::chain_steps on 16 AVX-512 lanes (sha256_lanes.h "LM-OTS chains"). Same CPU check.
void chain_steps_avx512(const PrefixState& prefix, std::uint8_t* chains, std::size_t stride, std::size_t count,
                        std::size_t rest_len, unsigned from, unsigned to) noexcept;

// The same with the tail policy chosen by the caller: for the tests and the benchmark.
void hash_many_avx512_with(Tail tail, const PrefixState& prefix, const std::uint8_t* const* rests,
                           std::size_t rest_len, std::uint8_t* const* outs, std::size_t count) noexcept;
void hash_many_avx2_with(Tail tail, const PrefixState& prefix, const std::uint8_t* const* rests,
                         std::size_t rest_len, std::uint8_t* const* outs, std::size_t count) noexcept;

namespace detail {

#define KLMS_LANES_INLINE [[gnu::always_inline]] inline

// Where message word 4 + t of block 0 (rest bytes 4t..4t+3) comes from when I || rest and its
// padding fit one block. The rest is loaded in 16-byte segments per lane (never past its end: the
// last segment is loaded from rest_len - 16), transposed so that word q of segment s is m[s][q];
// a word the segments do not align with is a funnel shift of two of them. The 0x80 byte and the
// length are OR-ed in as constants.
struct WordPlan {
  bool data = false;       // any message byte in it (else it is padding only)
  std::size_t segment = 0;
  std::size_t word = 0;    // the segment word holding its first byte
  unsigned shift = 0;      // bytes to drop from that word's front
  bool next = false;       // take the remaining bytes from word + 1
  std::uint32_t padding = 0;
};

// The kernel over one ISA. Ops provides: V, kLanes, kPadFrom* (see pad_from), add, bit_or, set1, shl<N>, shr<N>,
// big_sigma0/1, small_sigma0/1, choose, majority, (for the chains: zero, bit_and), load_words (four
// big-endian words from 16 bytes of each lane, transposed) and store_digests (eight state vectors to
// 32 big-endian bytes per lane).
template <class Ops>
struct Kernel {
  using V = typename Ops::V;
  static constexpr std::size_t kLanes = Ops::kLanes;
  using Pointers = const std::uint8_t* [kLanes];
  using Inputs = const std::uint8_t* const*;  // kLanes pointers
  using Outputs = std::uint8_t* const*;
  using State = V[8];
  using Schedule = V[16];  // W[t] in w[t % 16]

  // Round T in slot order, as sha256_rounds.h: a sits in slot (8 - T % 8) % 8 and so on, so nothing
  // moves between rounds. FoldedSigma0: for T = 16..18 of block 0, w[T % 16] already holds
  // W[T-16] + σ0(W[T-15]), a per-key constant (W0..W3 are I).
  template <std::size_t T, bool FoldedSigma0>
  KLMS_LANES_INLINE static void round(State& v, Schedule& w, const std::uint32_t* k) noexcept {
    constexpr std::size_t a = (8 - T % 8) % 8, b = (a + 1) % 8, c = (a + 2) % 8, d = (a + 3) % 8;
    constexpr std::size_t e = (a + 4) % 8, f = (a + 5) % 8, g = (a + 6) % 8, h = (a + 7) % 8;
    if constexpr (T >= 16) {
      V x = Ops::add(w[(T - 7) % 16], Ops::small_sigma1(w[(T - 2) % 16]));
      if constexpr (!(FoldedSigma0 && T <= 18)) x = Ops::add(x, Ops::small_sigma0(w[(T - 15) % 16]));
      w[T % 16] = Ops::add(w[T % 16], x);
    }
    // h + K + W and Ch first: the new e's critical path is then Σ1 and two additions.
    const V hkw = Ops::add(v[h], Ops::add(w[T % 16], Ops::set1(k[T])));
    const V t1 = Ops::add(Ops::add(hkw, Ops::choose(v[e], v[f], v[g])), Ops::big_sigma1(v[e]));
    const V t2 = Ops::add(Ops::big_sigma0(v[a]), Ops::majority(v[a], v[b], v[c]));
    v[d] = Ops::add(v[d], t1);
    v[h] = Ops::add(t1, t2);
  }

  template <std::size_t First, bool FoldedSigma0, std::size_t... T>
  KLMS_LANES_INLINE static void rounds(State& v, Schedule& w, std::index_sequence<T...>) noexcept {
    // K through a pointer the compiler cannot see into: with the values known it builds each in a
    // general register and broadcasts it from there, a shuffle µop per round; from memory the
    // broadcast is a plain load.
    const std::uint32_t* k = kRoundConstants;
    asm("" : "+r"(k));
    (round<First + T, FoldedSigma0>(v, w, k), ...);
  }

  // Block 0 of I || rest: rounds 4..63 from init_prefix's state, broadcast to every lane; the caller
  // has put message words 4..15 in w_in[4..15]. Not inlined: one copy serves every length.
  [[gnu::noinline]] static void compress_first(const Prefix& p, const Schedule& w_in, State& out) noexcept {
    Schedule w;
    const std::uint32_t* i = p.first_words;
    w[0] = Ops::set1(i[0] + small_sigma0(i[1]));
    w[1] = Ops::set1(i[1] + small_sigma0(i[2]));
    w[2] = Ops::set1(i[2] + small_sigma0(i[3]));
    w[3] = Ops::set1(i[3]);
    for (std::size_t k = 4; k < 16; ++k) w[k] = w_in[k];
    State v;
    for (std::size_t k = 0; k < 8; ++k) v[k] = Ops::set1(p.slots[k]);
    rounds<4, true>(v, w, std::make_index_sequence<60>{});
    for (std::size_t k = 0; k < 8; ++k) out[k] = Ops::add(v[k], Ops::set1(kInitialState[k]));
  }

  // Any later block: h += rounds 0..63 of w_in.
  [[gnu::noinline]] static void compress_next(State& h, const Schedule& w_in) noexcept {
    Schedule w;
    for (std::size_t k = 0; k < 16; ++k) w[k] = w_in[k];
    State v;
    for (std::size_t k = 0; k < 8; ++k) v[k] = h[k];
    rounds<0, false>(v, w, std::make_index_sequence<64>{});
    for (std::size_t k = 0; k < 8; ++k) h[k] = Ops::add(h[k], v[k]);
  }

  static constexpr std::uint32_t small_sigma0(std::uint32_t x) noexcept {
    return (x >> 7 | x << 25) ^ (x >> 18 | x << 14) ^ (x >> 3);
  }

  static void load_block(Inputs p, std::size_t offset, Schedule& w) noexcept {
    for (std::size_t s = 0; s < 4; ++s) Ops::load_words(p, offset + 16 * s, w + 4 * s);
  }

  // (Members, not free functions: code emitted for them belongs to this ISA's instantiation.)
  static constexpr std::size_t segment_offset(std::size_t rest_len, std::size_t segment) {
    return 16 * segment + 16 <= rest_len ? 16 * segment : rest_len - 16;
  }

  static constexpr WordPlan word_plan(std::size_t rest_len, std::size_t t) {
    WordPlan plan;
    const std::uint64_t bits = std::uint64_t{kIdentifierBytes + rest_len} * 8;
    for (std::size_t i = 0; i < 4; ++i) {
      const std::size_t in_rest = 4 * t + i, in_block = kIdentifierBytes + in_rest;
      std::uint32_t byte = 0;
      if (in_rest == rest_len) byte = 0x80;
      if (in_block >= kBlockBytes - kLengthFieldBytes) byte = static_cast<std::uint8_t>(bits >> (8 * (kBlockBytes - 1 - in_block)));
      plan.padding |= byte << (24 - 8 * i);
    }
    if (4 * t >= rest_len) return plan;
    plan.data = true;
    plan.segment = t / 4;
    const std::size_t k = 4 * t - segment_offset(rest_len, plan.segment);
    plan.word = k / 4;
    plan.shift = static_cast<unsigned>(k % 4);
    plan.next = plan.shift != 0 && plan.word < 3;  // past word 3 lies the end of the rest: zeros
    return plan;
  }

  // The LMS one-block inputs (16 <= RestLen <= 39): straight from the messages into registers.
  template <std::size_t RestLen, std::size_t... T>
  KLMS_LANES_INLINE static void assemble_one_block(const V (&m)[3][4], Schedule& w, std::index_sequence<T...>) noexcept {
    ((w[4 + T] = assemble_word<word_plan(RestLen, T)>(m)), ...);
  }

  template <WordPlan P>
  KLMS_LANES_INLINE static V assemble_word(const V (&m)[3][4]) noexcept {
    if constexpr (!P.data) {
      return Ops::set1(P.padding);
    } else {
      V x = m[P.segment][P.word];
      if constexpr (P.shift != 0) x = Ops::template shl<8 * P.shift>(x);
      if constexpr (P.next) x = Ops::bit_or(x, Ops::template shr<32 - 8 * P.shift>(m[P.segment][P.word + 1]));
      if constexpr (P.padding != 0) x = Ops::bit_or(x, Ops::set1(P.padding));
      return x;
    }
  }

  template <std::size_t RestLen>
  static void one_block(const Prefix& p, Inputs rests, Outputs outs) noexcept {
    static_assert(RestLen >= 16 && kIdentifierBytes + RestLen <= kMaxOneBlockBytes);
    V m[3][4];
    for (std::size_t s = 0; s < 3; ++s) {
      if (16 * s < RestLen) Ops::load_words(rests, segment_offset(RestLen, s), m[s]);
    }
    Schedule w;
    assemble_one_block<RestLen>(m, w, std::make_index_sequence<12>{});
    State h;
    compress_first(p, w, h);
    Ops::store_digests(h, outs);
  }

  // Any length; the message ends (with its padding) in per-lane copies on the stack.
  static void any_length(const Prefix& p, Inputs rests, std::size_t rest_len, Outputs outs) noexcept {
    constexpr std::size_t kFirstRest = kBlockBytes - kIdentifierBytes;  // rest bytes in block 0
    const std::uint64_t bits = std::uint64_t{kIdentifierBytes + rest_len} * 8;
    alignas(64) std::uint8_t last[kLanes][2 * kBlockBytes];
    Pointers in_last;
    Schedule w;
    State h;
    if (rest_len >= kFirstRest) {
      for (std::size_t s = 0; s < 3; ++s) Ops::load_words(rests, 16 * s, w + 4 + 4 * s);
      compress_first(p, w, h);
      std::size_t offset = kFirstRest;
      for (; rest_len - offset >= kBlockBytes; offset += kBlockBytes) {
        Pointers blocks;
        for (std::size_t l = 0; l < kLanes; ++l) blocks[l] = rests[l] + offset;
        load_block(blocks, 0, w);
        compress_next(h, w);
      }
      const std::size_t tail = rest_len - offset;
      const std::size_t count = tail + 1 + kLengthFieldBytes <= kBlockBytes ? 1 : 2;
      for (std::size_t l = 0; l < kLanes; ++l) {
        if (tail != 0) std::memcpy(last[l], rests[l] + offset, tail);
        last[l][tail] = 0x80;
        std::memset(last[l] + tail + 1, 0, count * kBlockBytes - tail - 1 - kLengthFieldBytes);
        store_be64(last[l] + count * kBlockBytes - kLengthFieldBytes, bits);
        in_last[l] = last[l];
      }
      for (std::size_t b = 0; b < count; ++b) {
        load_block(in_last, b * kBlockBytes, w);
        compress_next(h, w);
      }
    } else {
      // The message ends in block 0; its padding may spill into block 1.
      const bool one = kIdentifierBytes + rest_len <= kMaxOneBlockBytes;
      for (std::size_t l = 0; l < kLanes; ++l) {
        if (rest_len != 0) std::memcpy(last[l], rests[l], rest_len);
        std::memset(last[l] + rest_len, 0, sizeof last[l] - rest_len);
        last[l][rest_len] = 0x80;
        store_be64(last[l] + (one ? kFirstRest : kFirstRest + kBlockBytes) - kLengthFieldBytes, bits);
        in_last[l] = last[l];
      }
      for (std::size_t s = 0; s < 3; ++s) Ops::load_words(in_last, 16 * s, w + 4 + 4 * s);
      compress_first(p, w, h);
      if (!one) {
        load_block(in_last, kFirstRest, w);
        compress_next(h, w);
      }
    }
    Ops::store_digests(h, outs);
  }

  // One full group. Every input is read before any output is written, so outs[l] may alias rests[l].
  static void group(const Prefix& p, Inputs rests, std::size_t rest_len, Outputs outs) noexcept {
    switch (rest_len) {  // chains and PRF (n = 32, 24), leaves (n = 32, 24)
      case 39: return one_block<39>(p, rests, outs);
      case 31: return one_block<31>(p, rests, outs);
      case 38: return one_block<38>(p, rests, outs);
      case 30: return one_block<30>(p, rests, outs);
      default: return any_length(p, rests, rest_len, outs);
    }
  }

  // Fewest messages left over for which one padded group beats SHA-NI on them. SHA-NI's cost per
  // message depends on the length: rest 39 and 31 (the chain and PRF inputs) have its own fast path.
  static std::size_t pad_from(std::size_t rest_len) noexcept {
    if (rest_len == 39 || rest_len == 31) return Ops::kPadFromShaNiFastPath;
    if (kIdentifierBytes + rest_len <= kMaxOneBlockBytes) return Ops::kPadFromOneBlock;
    return Ops::kPadFromMultiBlock;
  }

  static void hash_many(Tail tail, const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                        std::uint8_t* const* outs, std::size_t count) noexcept {
    const Prefix& p = *std::launder(reinterpret_cast<const Prefix*>(prefix.bytes));
    std::size_t k = 0;
    for (; count - k >= kLanes; k += kLanes) {
      group(p, rests + k, rest_len, outs + k);
    }
    const std::size_t left = count - k;
    if (left == 0) return;
    if (tail == Tail::kShaNi || (tail == Tail::kAuto && left < pad_from(rest_len))) {
      shani::hash_many(prefix, rests + k, rest_len, outs + k, left);
      return;
    }
    // The idle lanes hash the first real message again and write to a scratch buffer.
    alignas(64) std::uint8_t sink[kLanes][kOutputBytes];
    Pointers r;
    std::uint8_t* o[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) {
      r[l] = l < left ? rests[k + l] : rests[k];
      o[l] = l < left ? outs[k + l] : sink[l];
    }
    group(p, r, rest_len, o);
  }

  // ---- Whole messages from the initial value (sha256_midstate.h: XMSS's n = 24 sets) ---------------

  // One full group; the message tails, padded, in per-lane copies. Every input is read before any
  // output is written.
  static void digest_group(Inputs ins, std::size_t len, Outputs outs) noexcept {
    const std::uint64_t bits = std::uint64_t{len} * 8;
    alignas(64) std::uint8_t last[kLanes][2 * kBlockBytes];
    Pointers in_last;
    Schedule w;
    State h;
    for (std::size_t k = 0; k < 8; ++k) h[k] = Ops::set1(kInitialState[k]);
    std::size_t offset = 0;
    for (; len - offset >= kBlockBytes; offset += kBlockBytes) {
      Pointers blocks;
      for (std::size_t l = 0; l < kLanes; ++l) blocks[l] = ins[l] + offset;
      load_block(blocks, 0, w);
      compress_next(h, w);
    }
    const std::size_t tail = len - offset;
    const std::size_t count = tail + 1 + kLengthFieldBytes <= kBlockBytes ? 1 : 2;
    for (std::size_t l = 0; l < kLanes; ++l) {
      if (tail != 0) std::memcpy(last[l], ins[l] + offset, tail);
      last[l][tail] = 0x80;
      std::memset(last[l] + tail + 1, 0, count * kBlockBytes - tail - 1 - kLengthFieldBytes);
      store_be64(last[l] + count * kBlockBytes - kLengthFieldBytes, bits);
      in_last[l] = last[l];
    }
    for (std::size_t b = 0; b < count; ++b) {
      load_block(in_last, b * kBlockBytes, w);
      compress_next(h, w);
    }
    Ops::store_digests(h, outs);
  }

  static void digest_many(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                          std::size_t count) noexcept {
    std::size_t k = 0;
    for (; count - k >= kLanes; k += kLanes) digest_group(ins + k, len, outs + k);
    const std::size_t left = count - k;
    if (left == 0) return;
    // The idle lanes hash the first real message again into a scratch output.
    alignas(64) std::uint8_t sink[kLanes][kOutputBytes];
    Pointers r;
    std::uint8_t* o[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) {
      r[l] = l < left ? ins[k + l] : ins[k];
      o[l] = l < left ? outs[k + l] : sink[l];
    }
    digest_group(r, len, o);
  }

  // ---- LM-OTS chains (Backend::chain_steps) --------------------------------------------------------
  //
  // Step t of a chain hashes I || u32(q) || u16(i) || u8(t) || tmp, n = 4N bytes of tmp, one block:
  //   W0..W3 = I, W4 = q, W5 = i || t || tmp[0], W(5+k) = tmp[4k-3 .. 4k] (k = 1 .. N-1),
  //   W(5+N) = tmp[4N-3 .. 4N-1] || 0x80, W(6+N) .. W14 = 0, W15 = the bit length.
  // tmp is the previous step's digest, so with the digest words D0..D7 in registers the message is
  // D(k-1) << 8 | D(k) >> 24: nothing is loaded, transposed or stored between steps. What does not
  // change from step to step is folded once per group: round 4 (it reads only the prefix state and
  // W4 = q), and the schedule's terms in the constant words (σ0/σ1 of W0..W3, W15, the zeros).

  // Where message word idx (< 16) of a chain step comes from.
  enum class ChainWord : std::uint8_t { kVar, kZero, kConst, kQ };
  template <std::size_t N>
  static constexpr ChainWord chain_word(std::size_t idx) {
    if (idx >= 16) return ChainWord::kVar;  // a schedule word computed in the step
    if (idx < 4 || idx == 15) return ChainWord::kConst;
    if (idx == 4) return ChainWord::kQ;
    return idx <= 5 + N ? ChainWord::kVar : ChainWord::kZero;
  }

  struct ChainConstants {
    alignas(64) std::uint32_t schedule[32];  // [T], T = 16..31: the sum of the constant terms of W[T]
    alignas(64) std::uint32_t round_kw[16];  // [T], T < 16, constant W[T]: K[T] + W[T]
    V q, sigma0_q;                          // W4 and σ0(W4), per lane
  };

  template <std::size_t N>
  static constexpr bool schedule_has_constant(std::size_t t) {
    return chain_word<N>(t - 16) == ChainWord::kConst || chain_word<N>(t - 15) == ChainWord::kConst ||
           chain_word<N>(t - 7) == ChainWord::kConst || chain_word<N>(t - 2) == ChainWord::kConst;
  }

  static constexpr std::uint32_t small_sigma1(std::uint32_t x) noexcept {
    return (x >> 17 | x << 15) ^ (x >> 19 | x << 13) ^ (x >> 10);
  }

  template <std::size_t N>
  static void chain_constants(const Prefix& p, std::uint32_t bits, ChainConstants& c) noexcept {
    auto word = [&](std::size_t idx) -> std::uint32_t { return idx < 4 ? p.first_words[idx] : idx == 15 ? bits : 0; };
    auto constant = [&](std::size_t idx) { return chain_word<N>(idx) == ChainWord::kConst; };
    for (std::size_t t = 16; t < 32; ++t) {
      std::uint32_t x = 0;
      if (constant(t - 16)) x += word(t - 16);
      if (constant(t - 15)) x += small_sigma0(word(t - 15));
      if (constant(t - 7)) x += word(t - 7);
      if (constant(t - 2)) x += small_sigma1(word(t - 2));
      c.schedule[t] = x;
    }
    for (std::size_t t = 0; t < 16; ++t) c.round_kw[t] = kRoundConstants[t] + word(t);
  }

  // Round T (5 <= T < 64) of a chain step.
  template <std::size_t T, std::size_t N>
  KLMS_LANES_INLINE static void chain_round(State& v, Schedule& w, const std::uint32_t* k,
                                            const ChainConstants& c) noexcept {
    constexpr std::size_t a = (8 - T % 8) % 8, b = (a + 1) % 8, cc = (a + 2) % 8, d = (a + 3) % 8;
    constexpr std::size_t e = (a + 4) % 8, f = (a + 5) % 8, g = (a + 6) % 8, h = (a + 7) % 8;
    V hkw;
    if constexpr (T >= 16) {
      constexpr ChainWord w16 = chain_word<N>(T - 16), w15 = chain_word<N>(T - 15);
      constexpr ChainWord w7 = chain_word<N>(T - 7), w2 = chain_word<N>(T - 2);
      // Summed in the order of the generic round (W[T-7] + σ1 first): additions commute, the
      // order only shapes the dependency chain.
      V x = Ops::zero();
      if constexpr (schedule_has_constant<N>(T)) x = Ops::set1(c.schedule[T]);
      if constexpr (w7 == ChainWord::kVar) x = Ops::add(x, w[(T - 7) % 16]);
      if constexpr (w2 == ChainWord::kVar) x = Ops::add(x, Ops::small_sigma1(w[(T - 2) % 16]));
      if constexpr (w15 == ChainWord::kVar) x = Ops::add(x, Ops::small_sigma0(w[(T - 15) % 16]));
      if constexpr (w15 == ChainWord::kQ) x = Ops::add(x, c.sigma0_q);
      if constexpr (w16 == ChainWord::kVar) x = Ops::add(x, w[T % 16]);
      if constexpr (w16 == ChainWord::kQ) x = Ops::add(x, c.q);
      w[T % 16] = x;
      hkw = Ops::add(v[h], Ops::add(x, Ops::set1(k[T])));
    } else if constexpr (chain_word<N>(T) == ChainWord::kVar) {
      hkw = Ops::add(v[h], Ops::add(w[T], Ops::set1(k[T])));
    } else {
      static_assert(chain_word<N>(T) != ChainWord::kQ);
      hkw = Ops::add(v[h], Ops::set1(c.round_kw[T]));
    }
    const V t1 = Ops::add(Ops::add(hkw, Ops::choose(v[e], v[f], v[g])), Ops::big_sigma1(v[e]));
    const V t2 = Ops::add(Ops::big_sigma0(v[a]), Ops::majority(v[a], v[b], v[cc]));
    v[d] = Ops::add(v[d], t1);
    v[h] = Ops::add(t1, t2);
  }

  template <std::size_t N, std::size_t... T>
  KLMS_LANES_INLINE static void chain_rounds(State& v, Schedule& w, const ChainConstants& c,
                                             std::index_sequence<T...>) noexcept {
    const std::uint32_t* k = kRoundConstants;
    asm("" : "+r"(k));
    (chain_round<5 + T, N>(v, w, k, c), ...);
  }

  // One group of kLanes chains, steps from .. to-1 (from < to), rest_len = 7 + 4N.
  template <std::size_t N>
  static void chain_group(const Prefix& p, std::uint8_t* const* bufs, unsigned from, unsigned to) noexcept {
    constexpr std::size_t kRest = 7 + 4 * N;
    constexpr std::uint32_t kBits = (kIdentifierBytes + kRest) * 8;
    ChainConstants c;
    chain_constants<N>(p, kBits, c);
    // q, i and tmp: words 0 and 1 of bytes 0..15 are q and i || j || tmp[0]; tmp[0..4N) from 7 on.
    V head[4], tmp[8];
    Ops::load_words(bufs, 0, head);
    Ops::load_words(bufs, 7, tmp);
    Ops::load_words(bufs, 7 + 4 * N - 16, tmp + N - 4);  // (N = 8: bytes 23..38; N = 6: overlaps)
    c.q = head[0];
    c.sigma0_q = Ops::small_sigma0(head[0]);
    const V index = Ops::bit_and(head[1], Ops::set1(0xFFFF0000u));
    // Round 4: the prefix state and W4 = q only.
    State v4;
    for (std::size_t s = 0; s < 8; ++s) v4[s] = Ops::set1(p.slots[s]);
    {
      Schedule w4;
      w4[4] = c.q;
      const std::uint32_t* k = kRoundConstants;
      round<4, true>(v4, w4, k);
    }
    State digest;
    for (unsigned t = from; t < to; ++t) {
      Schedule w;
      w[5] = Ops::bit_or(Ops::bit_or(index, Ops::set1((t & 0xFFu) << 8)), Ops::template shr<24>(tmp[0]));
      for (std::size_t k = 1; k < N; ++k) {
        w[5 + k] = Ops::bit_or(Ops::template shl<8>(tmp[k - 1]), Ops::template shr<24>(tmp[k]));
      }
      w[5 + N] = Ops::bit_or(Ops::template shl<8>(tmp[N - 1]), Ops::set1(0x80));
      State v;
      for (std::size_t s = 0; s < 8; ++s) v[s] = v4[s];
      chain_rounds<N>(v, w, c, std::make_index_sequence<59>{});
      for (std::size_t s = 0; s < 8; ++s) digest[s] = Ops::add(v[s], Ops::set1(kInitialState[s]));
      for (std::size_t s = 0; s < N; ++s) tmp[s] = digest[s];
    }
    std::uint8_t* outs[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) {
      bufs[l][6] = static_cast<std::uint8_t>(to - 1);
      outs[l] = bufs[l] + 7;
    }
    Ops::store_digests(digest, outs);
  }

  // The chains left over after the full groups (and other lengths): one SHA-NI hash_many call per
  // step. Key generation has none (kLeafBatch * p chains are whole groups) but in trees of fewer
  // than 16 leaves. SHA-NI directly, not the lanes' hash_many with its padded group: that would add
  // its 4.6 KiB frame below this one (the stack the engine wipes is the deepest path,
  // hashes/backend.h). Not inlined, so that chain_steps' own frame stays small.
  [[gnu::noinline]] static void chain_steps_by_step(const PrefixState& prefix, std::uint8_t* chains,
                                                    std::size_t stride, std::size_t count, std::size_t rest_len,
                                                    unsigned from, unsigned to) noexcept {
    constexpr std::size_t kBatch = kLanes;
    const std::uint8_t* rests[kBatch];
    std::uint8_t* outs[kBatch];
    for (std::size_t k = 0; k < count; k += kBatch) {
      const std::size_t batch = count - k < kBatch ? count - k : kBatch;
      for (std::size_t l = 0; l < batch; ++l) {
        rests[l] = chains + (k + l) * stride;
        outs[l] = chains + (k + l) * stride + 7;
      }
      for (unsigned t = from; t < to; ++t) {
        for (std::size_t l = 0; l < batch; ++l) chains[(k + l) * stride + 6] = static_cast<std::uint8_t>(t);
        shani::hash_many(prefix, rests, rest_len, outs, batch);
      }
    }
  }

  static void chain_steps(const PrefixState& prefix, std::uint8_t* chains, std::size_t stride, std::size_t count,
                          std::size_t rest_len, unsigned from, unsigned to) noexcept {
    if (from >= to || count == 0) return;
    const Prefix& p = *std::launder(reinterpret_cast<const Prefix*>(prefix.bytes));
    std::size_t k = 0;
    if (rest_len == 39 || rest_len == 31) {
      for (; count - k >= kLanes; k += kLanes) {
        std::uint8_t* bufs[kLanes];
        for (std::size_t l = 0; l < kLanes; ++l) bufs[l] = chains + (k + l) * stride;
        if (rest_len == 39) {
          chain_group<8>(p, bufs, from, to);
        } else {
          chain_group<6>(p, bufs, from, to);
        }
      }
    }
    if (k < count) chain_steps_by_step(prefix, chains + k * stride, stride, count - k, rest_len, from, to);
  }
};

#undef KLMS_LANES_INLINE

}  // namespace detail
}  // namespace klms::hashes::sha256::lanes
