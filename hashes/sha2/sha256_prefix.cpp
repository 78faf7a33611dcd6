#include "hashes/sha2/sha256_prefix.h"

#include <cstring>

#include "hashes/sha2/sha256_rounds.h"

namespace klms::hashes::sha256 {

void init_prefix(PrefixState& state, const std::uint8_t* identifier) noexcept {
  Prefix& p = *new (state.bytes) Prefix{};
  Schedule w{};
  for (std::size_t i = 0; i < 4; ++i) w[i] = load_be32(identifier + 4 * i);
  Slots v;
  std::memcpy(v, kInitialState, sizeof v);
  rounds<0, 4>(v, w);
  std::memcpy(p.slots, v, sizeof v);
  // At round 4, a..h sit in slots 4, 5, 6, 7, 0, 1, 2, 3.
  const std::uint32_t a = v[4], b = v[5], c = v[6], d = v[7], e = v[0], f = v[1], g = v[2], h = v[3];
  const std::uint32_t abef[4] = {f, e, b, a};
  const std::uint32_t cdgh[4] = {h, g, d, c};
  std::memcpy(p.abef, abef, sizeof abef);
  std::memcpy(p.cdgh, cdgh, sizeof cdgh);
  std::memcpy(p.first_words, w, sizeof p.first_words);
  std::memcpy(p.identifier, identifier, sizeof p.identifier);
}

}  // namespace klms::hashes::sha256
