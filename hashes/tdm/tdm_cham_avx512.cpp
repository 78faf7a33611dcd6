// TDM-CHAM with AVX-512: sixteen messages per zmm register; a last group of at most eight goes to
// ymm registers with the AVX-512VL rotate, and a very small remainder one by one.
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_epi32() as the unused merge source, which its
// own -Wuninitialized then reports wherever they are inlined (a compiler bug, not our code).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "hashes/tdm/tdm_cham_lanes.h"
#include "hashes/tdm/tdm_simd_avx512.h"
#include "hashes/tdm/tdm_simd_driver.h"

namespace klms::hashes::tdm {

void cham_hash_many_avx512vl_8(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                              std::uint8_t* const* outs, std::size_t count) noexcept {
  constexpr std::size_t kMinLanesWorthGroup = 2;  // measured: a ymm group costs less than two one-shots
  simd::hash_many<simd::Avx512VlOps, simd::ChamLanes<simd::Avx512VlOps>>(prefix, rests, rest_len, outs, count,
                                                                        &cham_hash_many_portable, kMinLanesWorthGroup);
}

void cham_hash_many_avx512(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                          std::uint8_t* const* outs, std::size_t count) noexcept {
  // Up to eight left over fit the 8-lane ymm path; more take a (partial) zmm group.
  constexpr std::size_t kMinLanesWorthGroup = 9;
  simd::hash_many<simd::Avx512Ops, simd::ChamLanes<simd::Avx512Ops>>(prefix, rests, rest_len, outs, count,
                                                                    &cham_hash_many_avx512vl_8, kMinLanesWorthGroup);
}

}  // namespace klms::hashes::tdm
