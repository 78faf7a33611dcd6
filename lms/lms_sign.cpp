#include "lms/lms_sign.h"

#include <cstring>

#include "lms/lmots.h"

namespace klms::lms {

void randomizer(const TreeKey& key, std::uint32_t q, std::uint8_t* out32) noexcept { key.prf(q, kPrfRandomizer, out32); }

void write_lms_signature(const TreeKey& key, std::uint32_t q, const std::uint8_t* randomizer_c,
                         const std::uint8_t* q_digest, const std::uint8_t* path, std::uint8_t* out) noexcept {
  const OtsParams& ots = *key.params.ots;
  const LmsParams& lms = *key.params.lms;
  std::uint8_t* p = out;
  put_u32(p, q);
  put_u32(p + 4, ots.code);
  std::memcpy(p + 8, randomizer_c, ots.n);
  p += 8 + ots.n;
  ots_sign_chains(key, q, q_digest, p);
  p += std::size_t{ots.p} * ots.n;
  put_u32(p, lms.code);
  std::memcpy(p + 4, path, std::size_t{lms.h} * lms.m);
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
  Bytes out;
  append_u32(out, key.params.lms->code);
  append_u32(out, key.params.ots->code);
  append_bytes(out, key.hasher.identifier.data(), key.hasher.identifier.size());
  append_bytes(out, root, key.params.lms->m);
  return out;
}

}  // namespace klms::lms
