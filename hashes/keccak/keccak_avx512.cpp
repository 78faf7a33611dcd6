// Eight Keccak-f[1600] states in the eight 64-bit elements of 25 zmm registers. AVX-512 has the
// rotate (vprolq) and three-input logic (vpternlogq) Keccak wants: θ's five-way XOR is two
// instructions and χ one.
#include <immintrin.h>

#include "hashes/keccak/keccak_round.h"
#include "hashes/keccak/keccak_simd.h"

namespace klms::hashes::keccak {
namespace {

struct Avx512Ops {
  static __m512i xor2(__m512i a, __m512i b) noexcept { return _mm512_xor_si512(a, b); }
  static __m512i xor5(__m512i a, __m512i b, __m512i c, __m512i d, __m512i e) noexcept {
    return _mm512_ternarylogic_epi64(_mm512_ternarylogic_epi64(a, b, c, 0x96), d, e, 0x96);  // 0x96: a ^ b ^ c
  }
  template <int N>
  static __m512i rotl(__m512i x) noexcept {
    if constexpr (N == 0) {
      return x;
    } else {
      // The masked form with every element selected is plain vprolq; GCC 12 warns (falsely) on the
      // unmasked intrinsic's undefined pass-through.
      return _mm512_mask_rol_epi64(x, static_cast<__mmask8>(0xFF), x, N);
    }
  }
  static __m512i chi(__m512i a, __m512i b, __m512i c) noexcept {
    return _mm512_ternarylogic_epi64(a, b, c, 0xD2);  // 0xD2: a ^ (~b & c)
  }
};

}  // namespace

void permute_x8_avx512(MultiState<8>& states) noexcept {
  __m512i a[kLanes];
  for (std::size_t i = 0; i < kLanes; ++i) a[i] = _mm512_load_si512(states.lanes[i]);
  permute_lanes<Avx512Ops>(a, [](std::size_t r) { return _mm512_set1_epi64(static_cast<long long>(kRoundConstants[r])); });
  for (std::size_t i = 0; i < kLanes; ++i) _mm512_store_si512(states.lanes[i], a[i]);
}

}  // namespace klms::hashes::keccak
