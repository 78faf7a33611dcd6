// Four Keccak-f[1600] states in the four 64-bit elements of ymm registers. AVX2 has neither a
// 64-bit rotate nor three-input logic: rotations are two shifts and an OR, χ an ANDNOT and an XOR.
#include <immintrin.h>

#include "hashes/keccak/keccak_round.h"
#include "hashes/keccak/keccak_simd.h"

namespace klms::hashes::keccak {
namespace {

struct Avx2Ops {
  static __m256i xor2(__m256i a, __m256i b) noexcept { return _mm256_xor_si256(a, b); }
  static __m256i xor5(__m256i a, __m256i b, __m256i c, __m256i d, __m256i e) noexcept {
    return _mm256_xor_si256(_mm256_xor_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(c, d)), e);
  }
  template <int N>
  static __m256i rotl(__m256i x) noexcept {
    if constexpr (N == 0) {
      return x;
    } else {
      return _mm256_or_si256(_mm256_slli_epi64(x, N), _mm256_srli_epi64(x, 64 - N));
    }
  }
  static __m256i chi(__m256i a, __m256i b, __m256i c) noexcept {
    return _mm256_xor_si256(a, _mm256_andnot_si256(b, c));  // andnot(b, c) = ~b & c
  }
};

}  // namespace

void permute_x4_avx2(MultiState<4>& states) noexcept {
  __m256i a[kLanes];
  for (std::size_t i = 0; i < kLanes; ++i) a[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(states.lanes[i]));
  permute_lanes<Avx2Ops>(a, [](std::size_t r) { return _mm256_set1_epi64x(static_cast<long long>(kRoundConstants[r])); });
  for (std::size_t i = 0; i < kLanes; ++i) _mm256_store_si256(reinterpret_cast<__m256i*>(states.lanes[i]), a[i]);
}

}  // namespace klms::hashes::keccak
