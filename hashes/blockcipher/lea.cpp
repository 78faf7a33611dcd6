#include "hashes/blockcipher/lea.h"

namespace klms::hashes::lea {

void expand_key128(const std::uint8_t key[16], RoundKeys& keys) noexcept {
  std::uint32_t t[4];
  for (int k = 0; k < 4; ++k) t[k] = load_le32(key + 4 * k);
  keys.rounds = 24;
  for (unsigned i = 0; i < 24; ++i) {
    for (unsigned k = 0; k < 4; ++k) t[k] = rotl32(t[k] + rotl32(kDelta[i % 4], i + k), kKeyRotation[k]);
    std::uint32_t* rk = keys.rk[i];
    rk[0] = t[0];
    rk[1] = t[1];
    rk[2] = t[2];
    rk[3] = t[1];
    rk[4] = t[3];
    rk[5] = t[1];
  }
}

void expand_key192(const std::uint8_t key[24], RoundKeys& keys) noexcept {
  std::uint32_t t[6];
  for (int k = 0; k < 6; ++k) t[k] = load_le32(key + 4 * k);
  keys.rounds = 28;
  for (unsigned i = 0; i < 28; ++i)
    for (unsigned k = 0; k < 6; ++k)
      keys.rk[i][k] = t[k] = rotl32(t[k] + rotl32(kDelta[i % 6], i + k), kKeyRotation[k]);
}

void expand_key256(const std::uint8_t key[32], RoundKeys& keys) noexcept {
  std::uint32_t t[8];
  for (int k = 0; k < 8; ++k) t[k] = load_le32(key + 4 * k);
  keys.rounds = 32;
  for (unsigned i = 0; i < 32; ++i) {
    for (unsigned k = 0; k < 6; ++k) {
      const unsigned j = (6 * i + k) % 8;
      keys.rk[i][k] = t[j] = rotl32(t[j] + kDelta256[6 * i + k], kKeyRotation[k]);
    }
  }
}

void encrypt(const RoundKeys& keys, const std::uint8_t in[kBlockBytes], std::uint8_t out[kBlockBytes]) noexcept {
  std::uint32_t x0 = load_le32(in), x1 = load_le32(in + 4), x2 = load_le32(in + 8), x3 = load_le32(in + 12);
  for (int i = 0; i < keys.rounds; ++i) {
    const std::uint32_t* k = keys.rk[i];
    round(x0, x1, x2, x3, k[0], k[1], k[2], k[3], k[4], k[5]);
  }
  store_le32(out, x0);
  store_le32(out + 4, x1);
  store_le32(out + 8, x2);
  store_le32(out + 12, x3);
}

}  // namespace klms::hashes::lea
