#include "hashes/digests.h"

#include <array>

#include "hashes/families.h"

namespace klms::hashes {

std::span<const DigestAlgorithm> digest_algorithms() noexcept {
  static const std::array<DigestAlgorithm, 9> all = {
      lsh256_256_digest(), lsh256_224_digest(), lsh512_512_digest(),
      lsh512_384_digest(), lsh512_256_digest(), lsh512_224_digest(),
      tdm_cham_digest(),   tdm_lea_digest(),    tdm_aria_digest(),
  };
  return all;
}

const DigestAlgorithm* find_digest(std::string_view name) noexcept {
  for (const DigestAlgorithm& d : digest_algorithms()) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

}  // namespace klms::hashes
