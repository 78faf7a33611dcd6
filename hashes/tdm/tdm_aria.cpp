// TDM-ARIA: the backend and digest built on the ARIA policy in tdm_ciphers.h.

#include "hashes/cpu_features.h"
#include "hashes/cpu_paths.h"
#include "hashes/families.h"
#include "hashes/tdm/tdm_ciphers.h"
#include "hashes/tdm/tdm_lanes.h"

namespace klms::hashes {
namespace tdm {

// kAriaInterleave messages at a time, their rounds interleaved; a last odd one alone.
void aria_hash_many_portable(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                             std::uint8_t* const* outs, std::size_t count) noexcept {
  const ChainValue start = prefix_chain(prefix);
  std::size_t k = 0;
  for (; k + kAriaInterleave <= count; k += kAriaInterleave)
    hash_after_prefix_interleaved<AriaCipher, kAriaInterleave>(start, rests + k, rest_len, outs + k);
  for (; k < count; ++k) hash_after_prefix<AriaCipher>(start, rests[k], rest_len, outs[k]);
}

bool gfni_supported() noexcept { return cpu_features().gfni; }

}  // namespace tdm

// hash_many: GFNI + AVX2 (four messages per call step) when the CPU has both, else two messages
// interleaved in plain C++. One-shot hashing uses the 32-bit tables.
Backend tdm_aria_backend() noexcept {
  if (chosen_path(PathSlot::kTdmAriaMany) == HashPath::kGfniAvx2)  // the path table (cpu_paths.cpp)
    return tdm::make_backend<tdm::AriaCipher>(BackendId::kTdmAria, HashFamily::kTdmAria, "tdm-aria", "gfni-avx2",
                                             &tdm::aria_hash_many_gfni_avx2, tdm::kAriaGfniMessages);
  return tdm::make_backend<tdm::AriaCipher>(BackendId::kTdmAria, HashFamily::kTdmAria, "tdm-aria", "portable",
                                           &tdm::aria_hash_many_portable, tdm::kAriaInterleave);
}

const DigestAlgorithm& tdm_aria_digest() noexcept {
  static constexpr DigestAlgorithm kDigest = tdm::make_digest<tdm::AriaCipher>("TDM-ARIA");
  return kDigest;
}

}  // namespace klms::hashes
