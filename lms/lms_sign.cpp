#include "lms/lms_sign.h"

#include <cstring>

#include "lms/lmots.h"
#include "lms/wire_format.h"

namespace klms::lms {

void randomizer(const TreeKey& key, std::uint32_t q, std::uint8_t* out32) noexcept { key.prf(q, kPrfRandomizer, out32); }

void write_lms_signature(const TreeKey& key, std::uint32_t q, const std::uint8_t* randomizer_c,
                         const std::uint8_t* q_digest, const std::uint8_t* path, std::uint8_t* out) noexcept {
  const LmsSignatureSlots slots = write_lms_signature_frame(key.params, q, out);
  std::memcpy(slots.randomizer, randomizer_c, key.params.ots->n);
  ots_sign_chains(key, q, q_digest, slots.chains);
  std::memcpy(slots.path, path, std::size_t{key.params.lms->h} * key.params.lms->m);
}

void lms_sign_message(const TreeKey& key, std::uint32_t q, ByteView message, const std::uint8_t* path,
                      std::uint8_t* out) noexcept {
  std::uint8_t c[32];
  std::uint8_t q_digest[32];
  randomizer(key, q, c);
  MessageHasher hasher(key.hasher, q, c, key.params.ots->n);
  hasher.update(message.data(), message.size());
  hasher.finish(q_digest);
  write_lms_signature(key, q, c, q_digest, path, out);
}

Bytes lms_public_key(const TreeKey& key, const std::uint8_t* root) {
  Bytes out(key.params.public_key_bytes());
  write_lms_public_key(key.params, key.hasher.identifier.data(), root, out.data());
  return out;
}

}  // namespace klms::lms
