// Per-block floors of SHA-256 on this CPU, measured on the whole block's instruction mix.
//
// The older floor (shani_floor_bench.cpp) counts only the 32 sha256rnds2 of a block. On Zen 4 that
// says 8.9 ns per block while no SHA-NI path comes near it (26-27 ns): there the message-schedule
// instructions (sha256msg1/msg2) and the shuffles share the SHA unit's throughput, so a floor must
// run all of them. These loops run one complete 64-round compression per chain and iteration, on
// registers only (no loads, stores, padding or transposes), with independent chains in flight:
//   floor/sha-ni-block-N-chains   the SHA-NI block: 32 rnds2, 12 msg1, 12 msg2, 12 alignr, adds
//   floor/avx512-block-x16        one block in each of 16 lanes of zmm registers (vprord, vpternlogd)
//   floor/avx2-block-x8           one block in each of 8 lanes of ymm registers (shift/or rotations)
// "ns/msg" is per block per message: what a hash_many of one-block messages cannot beat on that path.
// GCC 12 warns that the undefined source operand inside _mm512_ror_epi32/_mm512_srli_epi32 "may be
// used uninitialized" (it is the intrinsics' own _mm512_undefined_epi32): a false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include "bench/hash/backend_bench.h"
#include "bench/hash/hash_bench_util.h"
#include "hashes/cpu_features.h"

namespace klms::bench::hash {
namespace {

constexpr std::uint32_t kK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

// One SHA-NI block per chain, chains interleaved round group by round group.
template <int kChains>
[[gnu::target("sha,sse4.1")]] void shani_block(benchmark::State& state) {
  __m128i s0[kChains], s1[kChains], w[kChains][4];
  for (int c = 0; c < kChains; ++c) {
    s0[c] = _mm_set1_epi32(c + 1);
    s1[c] = _mm_set1_epi32(c + 2);
    for (int j = 0; j < 4; ++j) w[c][j] = _mm_set_epi32(c, j, c + j, 7);
  }
  for (auto _ : state) {
    __m128i a0[kChains], a1[kChains];
    for (int c = 0; c < kChains; ++c) a0[c] = s0[c], a1[c] = s1[c];
    for (int g = 0; g < 16; ++g) {  // 16 groups of 4 rounds
      const __m128i k = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kK + 4 * g));
      for (int c = 0; c < kChains; ++c) {
        __m128i* m = w[c];
        if (g >= 4) {  // W[g] from W[g-4..g-1] (ring of 4)
          const __m128i t = _mm_add_epi32(_mm_sha256msg1_epu32(m[g & 3], m[(g + 1) & 3]),
                                          _mm_alignr_epi8(m[(g + 3) & 3], m[(g + 2) & 3], 4));
          m[g & 3] = _mm_sha256msg2_epu32(t, m[(g + 3) & 3]);
        }
        __m128i msg = _mm_add_epi32(m[g & 3], k);
        a1[c] = _mm_sha256rnds2_epu32(a1[c], a0[c], msg);
        msg = _mm_shuffle_epi32(msg, 0x0e);
        a0[c] = _mm_sha256rnds2_epu32(a0[c], a1[c], msg);
      }
    }
    for (int c = 0; c < kChains; ++c) s0[c] = _mm_add_epi32(s0[c], a0[c]), s1[c] = _mm_add_epi32(s1[c], a1[c]);
    benchmark::DoNotOptimize(s0);
    benchmark::DoNotOptimize(s1);
  }
  set_per_message(state, kChains, 64);
}

// One block in every lane: the FIPS 180-4 round and schedule on vectors of 32-bit words.
#define KLMS_FLOOR_BLOCK(V, ADD, ROR, SHR, XOR3, CH, MAJ, SET1)                                         \
  V a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];           \
  for (int t = 0; t < 64; ++t) {                                                                      \
    if (t >= 16) {                                                                                    \
      const V w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];                                           \
      const V s0 = XOR3(ROR(w15, 7), ROR(w15, 18), SHR(w15, 3));                                      \
      const V s1 = XOR3(ROR(w2, 17), ROR(w2, 19), SHR(w2, 10));                                       \
      w[t & 15] = ADD(ADD(w[t & 15], s0), ADD(w[(t - 7) & 15], s1));                                  \
    }                                                                                                 \
    const V t1 = ADD(ADD(ADD(h, XOR3(ROR(e, 6), ROR(e, 11), ROR(e, 25))), CH(e, f, g)),               \
                     ADD(SET1(kK[t]), w[t & 15]));                                                    \
    const V t2 = ADD(XOR3(ROR(a, 2), ROR(a, 13), ROR(a, 22)), MAJ(a, b, c));                          \
    h = g, g = f, f = e, e = ADD(d, t1), d = c, c = b, b = a, a = ADD(t1, t2);                        \
  }                                                                                                   \
  st[0] = ADD(st[0], a), st[1] = ADD(st[1], b), st[2] = ADD(st[2], c), st[3] = ADD(st[3], d);         \
  st[4] = ADD(st[4], e), st[5] = ADD(st[5], f), st[6] = ADD(st[6], g), st[7] = ADD(st[7], h);

[[gnu::target("avx512f,avx512vl")]] void avx512_block(benchmark::State& state) {
  __m512i st[8], w[16];
  for (int i = 0; i < 8; ++i) st[i] = _mm512_set1_epi32(i * 3 + 1);
  for (int i = 0; i < 16; ++i) w[i] = _mm512_set1_epi32(i * 5 + 2);
#define ADD512(x, y) _mm512_add_epi32(x, y)
#define ROR512(x, n) _mm512_ror_epi32(x, n)
#define SHR512(x, n) _mm512_srli_epi32(x, n)
#define XOR3_512(x, y, z) _mm512_ternarylogic_epi32(x, y, z, 0x96)
#define CH512(x, y, z) _mm512_ternarylogic_epi32(x, y, z, 0xca)
#define MAJ512(x, y, z) _mm512_ternarylogic_epi32(x, y, z, 0xe8)
  for (auto _ : state) {
    KLMS_FLOOR_BLOCK(__m512i, ADD512, ROR512, SHR512, XOR3_512, CH512, MAJ512, _mm512_set1_epi32)
    benchmark::DoNotOptimize(st);
  }
  set_per_message(state, 16, 64);
}

[[gnu::target("avx2")]] void avx2_block(benchmark::State& state) {
  __m256i st[8], w[16];
  for (int i = 0; i < 8; ++i) st[i] = _mm256_set1_epi32(i * 3 + 1);
  for (int i = 0; i < 16; ++i) w[i] = _mm256_set1_epi32(i * 5 + 2);
#define ADD256(x, y) _mm256_add_epi32(x, y)
#define ROR256(x, n) _mm256_or_si256(_mm256_srli_epi32(x, n), _mm256_slli_epi32(x, 32 - (n)))
#define SHR256(x, n) _mm256_srli_epi32(x, n)
#define XOR3_256(x, y, z) _mm256_xor_si256(_mm256_xor_si256(x, y), z)
#define CH256(x, y, z) _mm256_xor_si256(_mm256_and_si256(x, _mm256_xor_si256(y, z)), z)
#define MAJ256(x, y, z) _mm256_or_si256(_mm256_and_si256(x, y), _mm256_and_si256(z, _mm256_or_si256(x, y)))
  for (auto _ : state) {
    KLMS_FLOOR_BLOCK(__m256i, ADD256, ROR256, SHR256, XOR3_256, CH256, MAJ256, _mm256_set1_epi32)
    benchmark::DoNotOptimize(st);
  }
  set_per_message(state, 8, 64);
}

// The experiment: do SHA-NI and the AVX-512 lanes run at the same time (different
// execution units)? One AVX-512 16-lane block and kShaChains SHA-NI blocks in one loop body, round
// group by round group, so the out-of-order core sees both streams at once. If the units overlap,
// the 16 + kShaChains messages cost less than 16 lanes plus kShaChains SHA-NI blocks apart.
template <int kShaChains>
[[gnu::target("avx512f,avx512vl,sha,sse4.1")]] void hybrid_block(benchmark::State& state) {
  __m512i st[8], w[16];
  for (int i = 0; i < 8; ++i) st[i] = _mm512_set1_epi32(i * 3 + 1);
  for (int i = 0; i < 16; ++i) w[i] = _mm512_set1_epi32(i * 5 + 2);
  __m128i s0[kShaChains], s1[kShaChains], m[kShaChains][4];
  for (int c = 0; c < kShaChains; ++c) {
    s0[c] = _mm_set1_epi32(c + 1);
    s1[c] = _mm_set1_epi32(c + 2);
    for (int j = 0; j < 4; ++j) m[c][j] = _mm_set_epi32(c, j, c + j, 7);
  }
  for (auto _ : state) {
    __m512i a = st[0], b = st[1], c = st[2], d = st[3], e = st[4], f = st[5], g = st[6], h = st[7];
    __m128i a0[kShaChains], a1[kShaChains];
    for (int k = 0; k < kShaChains; ++k) a0[k] = s0[k], a1[k] = s1[k];
    for (int grp = 0; grp < 16; ++grp) {
      for (int t = 4 * grp; t < 4 * grp + 4; ++t) {
        if (t >= 16) {
          const __m512i w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
          const __m512i x0 = XOR3_512(ROR512(w15, 7), ROR512(w15, 18), SHR512(w15, 3));
          const __m512i x1 = XOR3_512(ROR512(w2, 17), ROR512(w2, 19), SHR512(w2, 10));
          w[t & 15] = ADD512(ADD512(w[t & 15], x0), ADD512(w[(t - 7) & 15], x1));
        }
        const __m512i t1 = ADD512(ADD512(ADD512(h, XOR3_512(ROR512(e, 6), ROR512(e, 11), ROR512(e, 25))), CH512(e, f, g)),
                                  ADD512(_mm512_set1_epi32(kK[t]), w[t & 15]));
        const __m512i t2 = ADD512(XOR3_512(ROR512(a, 2), ROR512(a, 13), ROR512(a, 22)), MAJ512(a, b, c));
        h = g, g = f, f = e, e = ADD512(d, t1), d = c, c = b, b = a, a = ADD512(t1, t2);
      }
      const __m128i kv = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kK + 4 * grp));
      for (int k = 0; k < kShaChains; ++k) {
        __m128i* mm = m[k];
        if (grp >= 4) {
          const __m128i x = _mm_add_epi32(_mm_sha256msg1_epu32(mm[grp & 3], mm[(grp + 1) & 3]),
                                          _mm_alignr_epi8(mm[(grp + 3) & 3], mm[(grp + 2) & 3], 4));
          mm[grp & 3] = _mm_sha256msg2_epu32(x, mm[(grp + 3) & 3]);
        }
        __m128i msg = _mm_add_epi32(mm[grp & 3], kv);
        a1[k] = _mm_sha256rnds2_epu32(a1[k], a0[k], msg);
        msg = _mm_shuffle_epi32(msg, 0x0e);
        a0[k] = _mm_sha256rnds2_epu32(a0[k], a1[k], msg);
      }
    }
    st[0] = ADD512(st[0], a), st[1] = ADD512(st[1], b), st[2] = ADD512(st[2], c), st[3] = ADD512(st[3], d);
    st[4] = ADD512(st[4], e), st[5] = ADD512(st[5], f), st[6] = ADD512(st[6], g), st[7] = ADD512(st[7], h);
    for (int k = 0; k < kShaChains; ++k) s0[k] = _mm_add_epi32(s0[k], a0[k]), s1[k] = _mm_add_epi32(s1[k], a1[k]);
    benchmark::DoNotOptimize(st);
    benchmark::DoNotOptimize(s0);
    benchmark::DoNotOptimize(s1);
  }
  set_per_message(state, 16 + kShaChains, 64);
}

}  // namespace

void register_block_floor_benchmarks() {
  const hashes::CpuFeatures& f = hashes::cpu_features();
  if (f.sha_ni) {
    add("floor/sha-ni-block-1-chains", shani_block<1>);
    add("floor/sha-ni-block-2-chains", shani_block<2>);
    add("floor/sha-ni-block-4-chains", shani_block<4>);
  }
  if (f.avx512f && f.avx512vl) add("floor/avx512-block-x16", avx512_block);
  if (f.avx512f && f.avx512vl && f.sha_ni) {
    add("floor/hybrid-avx512-x16+sha-ni-1", hybrid_block<1>);
    add("floor/hybrid-avx512-x16+sha-ni-2", hybrid_block<2>);
    add("floor/hybrid-avx512-x16+sha-ni-4", hybrid_block<4>);
  }
  if (f.avx2) add("floor/avx2-block-x8", avx2_block);
}

}  // namespace klms::bench::hash
