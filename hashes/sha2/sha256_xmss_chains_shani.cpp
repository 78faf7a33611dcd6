// The XMSS chain kernel of sha256_xmss_chains.h with the SHA extensions: four chains at a time, each
// step's eight PRFs (key and mask of each chain) interleaved, then the four F's interleaved, every
// value, key and mask in registers (sha256_shani_rounds.h). The PRF starts at round 4 and F's first
// block at round 8 from the constant states of XmssChainConstants.
#include "hashes/sha2/sha256_shani_rounds.h"
#include "hashes/sha2/sha256_xmss_chains.h"

namespace klms::hashes::sha256::shani {
namespace {

constexpr std::size_t kChains = 4;

// A state's a..h (after the feed-forward) as message words: {A, B, C, D} and {E, F, G, H}.
KLMS_SHANI_INLINE void state_words(const Lane& s, __m128i& abcd, __m128i& efgh) noexcept {
  abcd = _mm_shuffle_epi32(_mm_unpackhi_epi64(s.abef, s.cdgh), 0xB1);  // from {B, A, D, C}
  efgh = _mm_shuffle_epi32(_mm_unpacklo_epi64(s.abef, s.cdgh), 0xB1);  // from {F, E, H, G}
}

KLMS_SHANI_INLINE void add_state(Lane& s, __m128i abef, __m128i cdgh) noexcept {
  s.abef = _mm_add_epi32(s.abef, abef);
  s.cdgh = _mm_add_epi32(s.cdgh, cdgh);
}

KLMS_SHANI_INLINE void store_words(std::uint8_t* out, __m128i words) noexcept {
  const __m128i swap_within_words = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_shuffle_epi8(words, swap_within_words));
}

// Exactly kChains chains; σ0 of the message schedule with sha256msg1 or SSE2 shifts
// (sha256_shani_rounds.h).
template <bool Sigma0InSoftware>
void group(const XmssChainConstants& c, const XmssChain* chains) noexcept {
  __m128i x[kChains][2];
  std::uint32_t longest = 0;
  for (std::size_t l = 0; l < kChains; ++l) {
    x[l][0] = load_words(chains[l].value);
    x[l][1] = load_words(chains[l].value + 16);
    if (chains[l].steps > longest) longest = chains[l].steps;
  }
  const __m128i tree = load(c.tree_words);
  const __m128i prf_abef = load(c.prf_abef), prf_cdgh = load(c.prf_cdgh);
  const __m128i mid_abef = load(c.prf_midstate_abef), mid_cdgh = load(c.prf_midstate_cdgh);
  const __m128i f_abef = load(c.f_abef), f_cdgh = load(c.f_cdgh);
  const __m128i initial_abef = load(kInitialAbef), initial_cdgh = load(kInitialCdgh);
  // The padding of a 96-byte input after its last 32 bytes: 0x80, zeros, 768.
  const __m128i padding = _mm_set_epi32(0, 0, 0, static_cast<int>(0x80000000u));
  const __m128i length = _mm_set_epi32(96 * 8, 0, 0, 0);
  const __m128i zero = _mm_setzero_si128();
  for (std::uint32_t i = 0; i < longest; ++i) {
    // PRF(SEED, ADRS) with keyAndMask 0 (lanes 0-3) and 1 (lanes 4-7): rounds 4-63 of ADRS || padding.
    Lane prf[2 * kChains];
    Words w[2 * kChains];
    for (std::size_t l = 0; l < 2 * kChains; ++l) {
      const XmssChain& ch = chains[l % kChains];
      prf[l] = Lane{prf_abef, prf_cdgh};
      w[l][0] = tree;
      w[l][1] = _mm_set_epi32(static_cast<int>(l / kChains), static_cast<int>(ch.start + i),
                              static_cast<int>(ch.chain_index), static_cast<int>(ch.ots_index));
      w[l][2] = padding;
      w[l][3] = length;
    }
    rounds<2 * kChains, 1, Sigma0InSoftware>(prf, w);
    for (Lane& s : prf) add_state(s, mid_abef, mid_cdgh);
    // F(KEY, x XOR BM): toByte(0, 32) || KEY from round 8, then (x XOR BM) || padding.
    Lane f[kChains];
    Words wf[kChains];
    for (std::size_t l = 0; l < kChains; ++l) {
      f[l] = Lane{f_abef, f_cdgh};
      wf[l][0] = zero;
      wf[l][1] = zero;
      state_words(prf[l], wf[l][2], wf[l][3]);
    }
    rounds<kChains, 2, Sigma0InSoftware>(f, wf);
    for (Lane& s : f) add_state(s, initial_abef, initial_cdgh);
    for (std::size_t l = 0; l < kChains; ++l) {
      __m128i bm_low, bm_high;
      state_words(prf[kChains + l], bm_low, bm_high);
      wf[l][0] = _mm_xor_si128(x[l][0], bm_low);
      wf[l][1] = _mm_xor_si128(x[l][1], bm_high);
      wf[l][2] = padding;
      wf[l][3] = length;
    }
    compress_words<kChains, Sigma0InSoftware>(f, wf);
    for (std::size_t l = 0; l < kChains; ++l) {
      if (i < chains[l].steps) state_words(f[l], x[l][0], x[l][1]);
    }
  }
  for (std::size_t l = 0; l < kChains; ++l) {
    store_words(chains[l].value, x[l][0]);
    store_words(chains[l].value + 16, x[l][1]);
  }
}

template <bool Sigma0InSoftware>
void run(const XmssChainConstants& c, XmssChain* chains, std::size_t count) noexcept {
  std::size_t k = 0;
  for (; count - k >= kChains; k += kChains) group<Sigma0InSoftware>(c, chains + k);
  if (k == count) return;
  alignas(16) std::uint8_t sink[kChains][32] = {};
  XmssChain padded[kChains];
  for (std::size_t l = 0; l < kChains; ++l) padded[l] = k + l < count ? chains[k + l] : XmssChain{sink[l], 0, 0, 0, 0};
  group<Sigma0InSoftware>(c, padded);
}

}  // namespace

void xmss_chains(const XmssChainConstants& c, XmssChain* chains, std::size_t count) noexcept {
  run<true>(c, chains, count);
}

void xmss_chains_msg1(const XmssChainConstants& c, XmssChain* chains, std::size_t count) noexcept {
  run<false>(c, chains, count);
}

}  // namespace klms::hashes::sha256::shani
