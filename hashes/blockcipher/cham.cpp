#include "hashes/blockcipher/cham.h"

namespace klms::hashes::cham {

void expand_key(const std::uint8_t key[kKeyBytes], RoundKeys& keys) noexcept {
  std::uint32_t words[8];
  for (int i = 0; i < 8; ++i) words[i] = load_le32(key + 4 * i);
  expand_key_words(words, keys.rk);
}

void encrypt(const RoundKeys& keys, const std::uint8_t in[kBlockBytes], std::uint8_t out[kBlockBytes]) noexcept {
  std::uint32_t x[4];
  for (int i = 0; i < 4; ++i) x[i] = load_le32(in + 4 * i);
  encrypt_words(keys.rk, x);
  for (int i = 0; i < 4; ++i) store_le32(out + 4 * i, x[i]);
}

}  // namespace klms::hashes::cham
