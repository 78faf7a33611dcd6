#include "xmss/wots.h"

#include <strings.h>

#include <cstring>

namespace klms::xmss {

void message_digits(const Params& params, const std::uint8_t* digest, std::uint8_t* digits) noexcept {
  const unsigned lg = params.log_w;
  const unsigned mask = params.w() - 1;
  // base_w(X, out_len): digits from the most significant bits of each byte (RFC 8391 §2.6).
  auto base_w = [&](const std::uint8_t* x, unsigned out_len, std::uint8_t* out) {
    unsigned in = 0, bits = 0, total = 0;
    for (unsigned i = 0; i < out_len; ++i) {
      if (bits == 0) {
        total = x[in++];
        bits = 8;
      }
      bits -= lg;
      out[i] = static_cast<std::uint8_t>((total >> bits) & mask);
    }
  };
  base_w(digest, params.len1, digits);
  unsigned checksum = 0;
  for (unsigned i = 0; i < params.len1; ++i) checksum += mask - digits[i];
  const unsigned checksum_bits = params.len2 * lg;
  checksum <<= (8 - checksum_bits % 8) % 8;
  const unsigned checksum_bytes = (checksum_bits + 7) / 8;
  std::uint8_t encoded[4] = {};
  for (unsigned i = 0; i < checksum_bytes; ++i) {
    encoded[i] = static_cast<std::uint8_t>(checksum >> (8 * (checksum_bytes - 1 - i)));
  }
  base_w(encoded, params.len2, digits + params.len1);
}

void wots_public_keys(const Hasher& hasher, const std::uint8_t* sk_seed, const TreeAddress& tree, std::uint32_t first,
                      unsigned count, std::uint8_t* pks) noexcept {
  const std::size_t len = hasher.params().len;
  Address addresses[kLeafBatch * kMaxLen];
  std::uint8_t* values[kLeafBatch * kMaxLen];
  for (unsigned leaf = 0; leaf < count; ++leaf) {
    for (std::size_t i = 0; i < len; ++i) {
      const std::size_t k = leaf * len + i;
      addresses[k] = Address::ots(tree, first + leaf);
      addresses[k].set_chain(static_cast<std::uint32_t>(i));
      values[k] = pks + k * kSlot;
    }
  }
  hasher.private_elements(sk_seed, addresses, values, count * len);
  hasher.chains(addresses, values, nullptr, nullptr, count * len);
}

void wots_sign(const Hasher& hasher, const std::uint8_t* sk_seed, const TreeAddress& tree, std::uint32_t ots_index,
               const std::uint8_t* digest, std::uint8_t* sig_slots) noexcept {
  const std::size_t len = hasher.params().len;
  std::uint8_t digits[kMaxLen];
  message_digits(hasher.params(), digest, digits);
  Address addresses[kMaxLen];
  std::uint8_t* values[kMaxLen];
  for (std::size_t i = 0; i < len; ++i) {
    addresses[i] = Address::ots(tree, ots_index);
    addresses[i].set_chain(static_cast<std::uint32_t>(i));
    values[i] = sig_slots + i * kSlot;
  }
  hasher.private_elements(sk_seed, addresses, values, len);
  hasher.chains(addresses, values, nullptr, digits, len);
}

void wots_public_key_from_signature(const Hasher& hasher, const TreeAddress& tree, std::uint32_t ots_index,
                                    const std::uint8_t* digest, const std::uint8_t* signature,
                                    std::uint8_t* pk_slots) noexcept {
  const std::size_t len = hasher.params().len;
  const std::size_t n = hasher.params().n;
  std::uint8_t digits[kMaxLen];
  message_digits(hasher.params(), digest, digits);
  Address addresses[kMaxLen];
  std::uint8_t* values[kMaxLen];
  for (std::size_t i = 0; i < len; ++i) {
    addresses[i] = Address::ots(tree, ots_index);
    addresses[i].set_chain(static_cast<std::uint32_t>(i));
    values[i] = pk_slots + i * kSlot;
    std::memcpy(values[i], signature + i * n, n);
  }
  hasher.chains(addresses, values, digits, nullptr, len);
}

}  // namespace klms::xmss
