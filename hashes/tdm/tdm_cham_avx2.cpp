// TDM-CHAM, eight messages at once in AVX2 registers (one message per 32-bit lane).
#include "hashes/tdm/tdm_cham_lanes.h"
#include "hashes/tdm/tdm_simd_avx2.h"
#include "hashes/tdm/tdm_simd_driver.h"

namespace klms::hashes::tdm {

void cham_hash_many_avx2(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                        std::uint8_t* const* outs, std::size_t count) noexcept {
  // A partial group costs as much as a full one; below this many messages one-by-one is faster
  // (measured with klms-blockhash-bench, many-avx2/count:N).
  constexpr std::size_t kMinLanesWorthGroup = 2;
  simd::hash_many<simd::Avx2Ops, simd::ChamLanes<simd::Avx2Ops>>(prefix, rests, rest_len, outs, count,
                                                                  &cham_hash_many_portable, kMinLanesWorthGroup);
}

}  // namespace klms::hashes::tdm
