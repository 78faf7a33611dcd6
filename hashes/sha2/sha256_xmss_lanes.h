// The XMSS chain kernel of sha256_xmss_chains.h on SIMD lanes, one chain per 32-bit lane: a template
// over the same `Ops` as the LMS lane kernel (sha256_avx512_ops.h, sha256_avx2_ops.h), instantiated
// in sha256_xmss_chains_avx512.cpp and sha256_xmss_chains_avx2.cpp inside their anonymous
// namespaces (internal linkage: no AVX-512 code can be picked by the linker for another caller).
//
// A group of kLanes chains runs for as many steps as its longest chain; a lane whose chain is done
// keeps its value (a masked move). Each step, all in registers:
//   PRF block: rounds 4-5 once per group (ADRS words 4, 5), round 6 per step (the hash address),
//              then rounds 7-63 twice, keyAndMask = 0 and 1 (word 7, a constant of each)
//   F block 1: rounds 8-63 from the constant state after eight zero words, KEY in words 8-15
//   F block 2: rounds 0-63, x XOR BM in words 0-7, the padding constant
// Constant message and schedule words come from XmssChainConstants as K[t] + W[t] (one broadcast
// per round) or as the constant part of a varying schedule word.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "hashes/sha2/sha256_common.h"
#include "hashes/sha2/sha256_xmss_chains.h"

namespace klms::hashes::sha256::lanes::xmss {

#define KLMS_XMSS_INLINE [[gnu::always_inline]] inline

// Ops as for sha256_lanes.h, plus bit_xor, load_lanes (kLanes 32-bit values), Mask, below (a < b per
// lane, unsigned) and select (mask ? a : b).
template <class Ops>
struct Kernel {
  using V = typename Ops::V;
  using Mask = typename Ops::Mask;
  static constexpr std::size_t kLanes = Ops::kLanes;
  using State = V[8];
  using Schedule = V[16];  // W[t] in w[t % 16]

  // Round T of a block whose varying words are `Varying`, in slot order (sha256_rounds.h).
  template <std::uint16_t Varying, std::size_t T>
  KLMS_XMSS_INLINE static void round(State& v, Schedule& w, const XmssBlockConstants& c,
                                     const std::uint32_t* k) noexcept {
    static constexpr ScheduleVaries kV = schedule_varies(Varying);
    constexpr std::size_t a = (8 - T % 8) % 8, b = (a + 1) % 8, cc = (a + 2) % 8, d = (a + 3) % 8;
    constexpr std::size_t e = (a + 4) % 8, f = (a + 5) % 8, g = (a + 6) % 8, h = (a + 7) % 8;
    V hkw;
    if constexpr (kV.word[T]) {
      if constexpr (T >= 16) {
        // Summed in the generic round's order (W[T-7] + σ1 first): only the dependency chain changes.
        V x;
        bool have = false;
        auto plus = [&](V term) {
          x = have ? Ops::add(x, term) : term;
          have = true;
        };
        if constexpr (kV.has_constant[T]) plus(Ops::set1(c.part[T]));
        if constexpr (kV.word[T - 7]) plus(w[(T - 7) % 16]);
        if constexpr (kV.word[T - 2]) plus(Ops::small_sigma1(w[(T - 2) % 16]));
        if constexpr (kV.word[T - 15]) plus(Ops::small_sigma0(w[(T - 15) % 16]));
        if constexpr (kV.word[T - 16]) plus(w[T % 16]);
        w[T % 16] = x;
      }
      hkw = Ops::add(v[h], Ops::add(w[T % 16], Ops::set1(k[T])));
    } else {
      hkw = Ops::add(v[h], Ops::set1(c.kw[T]));
    }
    const V t1 = Ops::add(Ops::add(hkw, Ops::choose(v[e], v[f], v[g])), Ops::big_sigma1(v[e]));
    const V t2 = Ops::add(Ops::big_sigma0(v[a]), Ops::majority(v[a], v[b], v[cc]));
    v[d] = Ops::add(v[d], t1);
    v[h] = Ops::add(t1, t2);
  }

  template <std::uint16_t Varying, std::size_t First, std::size_t... T>
  KLMS_XMSS_INLINE static void rounds(State& v, Schedule& w, const XmssBlockConstants& c,
                                      std::index_sequence<T...>) noexcept {
    // K through a pointer the compiler cannot see into: broadcast from memory, not built in a
    // general register and shuffled (sha256_lanes.h).
    const std::uint32_t* k = kRoundConstants;
    asm("" : "+r"(k));
    (round<Varying, First + T>(v, w, c, k), ...);
  }

  // Rounds First .. 63.
  template <std::uint16_t Varying, std::size_t First>
  KLMS_XMSS_INLINE static void rounds_from(State& v, Schedule& w, const XmssBlockConstants& c) noexcept {
    rounds<Varying, First>(v, w, c, std::make_index_sequence<64 - First>{});
  }

  // The PRF of keyAndMask km from the state after round 6: rounds 7-63, plus the midstate.
  // Not inlined: one copy serves both masks (the code of 57 rounds is large).
  [[gnu::noinline]] static void prf_rest(const XmssChainConstants& c, const XmssBlockConstants& bc, const State& v6,
                                         const Schedule& w6, State& out) noexcept {
    State v;
    Schedule w;
    for (std::size_t s = 0; s < 8; ++s) v[s] = v6[s];
    for (std::size_t s = 4; s < 7; ++s) w[s] = w6[s];
    rounds_from<kPrfVarying, 7>(v, w, bc);
    for (std::size_t s = 0; s < 8; ++s) out[s] = Ops::add(v[s], Ops::set1(c.prf_midstate[s]));
  }

  // x = F(key, x XOR bm) where `active`; the other lanes keep x.
  [[gnu::noinline]] static void f(const XmssChainConstants& c, const State& key, const State& bm, Mask active,
                                  State& x) noexcept {
    State v;
    Schedule w;
    for (std::size_t s = 0; s < 8; ++s) {
      v[s] = Ops::set1(c.f_round8[s]);
      w[8 + s] = key[s];
    }
    rounds_from<kFirstFVarying, 8>(v, w, c.first_f);
    State h;
    for (std::size_t s = 0; s < 8; ++s) {
      h[s] = Ops::add(v[s], Ops::set1(kInitialState[s]));
      v[s] = h[s];
      w[s] = Ops::bit_xor(x[s], bm[s]);
    }
    rounds_from<kSecondFVarying, 0>(v, w, c.second_f);
    for (std::size_t s = 0; s < 8; ++s) x[s] = Ops::select(active, Ops::add(h[s], v[s]), x[s]);
  }

  // One group of exactly kLanes chains.
  static void group(const XmssChainConstants& c, const XmssChain* chains) noexcept {
    alignas(64) std::uint32_t ots[kLanes], chain[kLanes], start[kLanes], steps[kLanes];
    std::uint8_t* values[kLanes];
    std::uint32_t longest = 0;
    for (std::size_t l = 0; l < kLanes; ++l) {
      ots[l] = chains[l].ots_index;
      chain[l] = chains[l].chain_index;
      start[l] = chains[l].start;
      steps[l] = chains[l].steps;
      values[l] = chains[l].value;
      if (steps[l] > longest) longest = steps[l];
    }
    State x;
    Ops::load_words(values, 0, x);
    Ops::load_words(values, 16, x + 4);
    // PRF rounds 4 and 5: the OTS and chain indices, fixed for the group.
    State v5;
    Schedule w;
    for (std::size_t s = 0; s < 8; ++s) v5[s] = Ops::set1(c.prf_round4[s]);
    w[4] = Ops::load_lanes(ots);
    w[5] = Ops::load_lanes(chain);
    {
      const std::uint32_t* k = kRoundConstants;
      asm("" : "+r"(k));
      round<kPrfVarying, 4>(v5, w, c.prf[0], k);
      round<kPrfVarying, 5>(v5, w, c.prf[0], k);
    }
    const V first = Ops::load_lanes(start), count = Ops::load_lanes(steps);
    for (std::uint32_t i = 0; i < longest; ++i) {
      const V iteration = Ops::set1(i);
      const Mask active = Ops::below(iteration, count);
      State v6;
      for (std::size_t s = 0; s < 8; ++s) v6[s] = v5[s];
      w[6] = Ops::add(first, iteration);  // the hash address
      {
        const std::uint32_t* k = kRoundConstants;
        asm("" : "+r"(k));
        round<kPrfVarying, 6>(v6, w, c.prf[0], k);
      }
      State key, bm;
      prf_rest(c, c.prf[0], v6, w, key);
      prf_rest(c, c.prf[1], v6, w, bm);
      f(c, key, bm, active, x);
    }
    Ops::store_digests(x, values);
  }

  static void run(const XmssChainConstants& c, XmssChain* chains, std::size_t count) noexcept {
    std::size_t k = 0;
    for (; count - k >= kLanes; k += kLanes) group(c, chains + k);
    if (k == count) return;
    // The idle lanes run no step (steps 0) and write their (unchanged) value to scratch.
    alignas(64) std::uint8_t sink[kLanes][32] = {};
    XmssChain padded[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) {
      padded[l] = k + l < count ? chains[k + l] : XmssChain{sink[l], 0, 0, 0, 0};
    }
    group(c, padded);
  }
};

#undef KLMS_XMSS_INLINE

}  // namespace klms::hashes::sha256::lanes::xmss
