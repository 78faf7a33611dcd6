#include "hashes/blockcipher/aria.h"

namespace klms::hashes::aria {
namespace {

void expand_key_bytes(const std::uint8_t* key, int key_words, int rounds, RoundKeys& keys) noexcept {
  std::uint32_t kl[4], kr[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; ++k) kl[k] = load_be32(key + 4 * k);
  for (int k = 4; k < key_words; ++k) kr[k - 4] = load_be32(key + 4 * k);
  keys.rounds = rounds;
  expand_key_words(kl, kr, rounds, keys.ek);
}

}  // namespace

void expand_key128(const std::uint8_t key[16], RoundKeys& keys) noexcept { expand_key_bytes(key, 4, 12, keys); }
void expand_key192(const std::uint8_t key[24], RoundKeys& keys) noexcept { expand_key_bytes(key, 6, 14, keys); }
void expand_key256(const std::uint8_t key[32], RoundKeys& keys) noexcept { expand_key_bytes(key, 8, 16, keys); }

void encrypt(const RoundKeys& keys, const std::uint8_t in[kBlockBytes], std::uint8_t out[kBlockBytes]) noexcept {
  std::uint32_t x[4];
  for (int k = 0; k < 4; ++k) x[k] = load_be32(in + 4 * k);
  encrypt_words(keys.ek, keys.rounds, x);
  for (int k = 0; k < 4; ++k) store_be32(out + 4 * k, x[k]);
}

}  // namespace klms::hashes::aria
