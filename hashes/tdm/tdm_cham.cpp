// TDM-CHAM: the backend and digest built on the CHAM policy in tdm_ciphers.h.
#include "hashes/cpu_features.h"
#include "hashes/cpu_paths.h"
#include "hashes/families.h"
#include "hashes/tdm/tdm_ciphers.h"
#include "hashes/tdm/tdm_lanes.h"

namespace klms::hashes {
namespace tdm {

void cham_hash_many_portable(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                          std::uint8_t* const* outs, std::size_t count) noexcept {
  Functions<ChamCipher>::hash_many(prefix, rests, rest_len, outs, count);
}

}  // namespace tdm

// hash_many runs one message per 32-bit SIMD lane when the CPU can (AVX-512: 16 lanes, AVX2: 8);
// one-shot hashing is scalar: within one message every step depends on the previous one.
Backend tdm_cham_backend() noexcept {
  // The path table (cpu_paths.cpp) says which; it only names paths this CPU runs.
  const HashPath path = chosen_path(PathSlot::kTdmChamMany);
  if (path == HashPath::kAvx512)
    return tdm::make_backend<tdm::ChamCipher>(BackendId::kTdmCham, HashFamily::kTdmCham, "tdm-cham", "avx512",
                                             &tdm::cham_hash_many_avx512, tdm::kAvx512Lanes);
  if (path == HashPath::kAvx2)
    return tdm::make_backend<tdm::ChamCipher>(BackendId::kTdmCham, HashFamily::kTdmCham, "tdm-cham", "avx2",
                                             &tdm::cham_hash_many_avx2, tdm::kAvx2Lanes);
  return tdm::make_backend<tdm::ChamCipher>(BackendId::kTdmCham, HashFamily::kTdmCham, "tdm-cham", "portable",
                                           &tdm::cham_hash_many_portable, 1);
}

const DigestAlgorithm& tdm_cham_digest() noexcept {
  static constexpr DigestAlgorithm kDigest = tdm::make_digest<tdm::ChamCipher>("TDM-CHAM");
  return kDigest;
}

}  // namespace klms::hashes
