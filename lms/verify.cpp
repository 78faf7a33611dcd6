#include "lms/verify.h"

#include <cstring>

#include "lms/hss.h"
#include "lms/lmots.h"
#include "lms/merkle_tree.h"
#include "lms/tree_key.h"
#include "lms/verify_parts.h"

namespace klms::lms {
namespace {

Error lms_verify_parsed(const LmsPublicKeyView& key, std::span<const ByteView> message, const LmsSignatureView& sig,
                        const hashes::Backend* preferred) noexcept {
  if (sig.params.lms != key.params.lms || sig.params.ots != key.params.ots) return Error::kVerifyFailed;
  const TreeHasher hasher = hasher_for(key, preferred);
  std::uint8_t q_digest[32];
  MessageHasher message_hash(hasher, sig.q, sig.randomizer.data(), key.params.ots->n);
  for (const ByteView piece : message) message_hash.update(piece.data(), piece.size());
  message_hash.finish(q_digest);
  return lms_verify_digest(key, sig, hasher, q_digest);
}

}  // namespace

TreeHasher hasher_for(const LmsPublicKeyView& key, const hashes::Backend* preferred) noexcept {
  Identifier id;
  std::memcpy(id.data(), key.identifier.data(), id.size());
  return TreeHasher(backend_for(key.params.lms->hash, preferred), id);
}

Error lms_verify_digest(const LmsPublicKeyView& key, const LmsSignatureView& sig, const TreeHasher& hasher,
                        const std::uint8_t* q_digest) noexcept {
  if (sig.params.lms != key.params.lms || sig.params.ots != key.params.ots) return Error::kVerifyFailed;
  const OtsParams& ots = *key.params.ots;
  const LmsParams& lms = *key.params.lms;
  std::uint8_t candidate[32];
  ots_candidate_key(ots, hasher, sig.q, q_digest, sig.chains.data(), candidate);

  std::uint8_t leaf_input[6 + 32];
  put_u32(leaf_input, static_cast<std::uint32_t>((std::uint64_t{1} << lms.h) + sig.q));
  put_u16(leaf_input + 4, kDomainLeaf);
  std::memcpy(leaf_input + 6, candidate, lms.m);
  std::uint8_t node[32];
  hasher.one(leaf_input, 6 + lms.m, node);

  std::uint8_t root[32];
  root_from_path(hasher, lms.h, lms.m, sig.q, node, sig.path.data(), root);
  return std::memcmp(root, key.root.data(), lms.m) == 0 ? Error::kOk : Error::kVerifyFailed;
}

Error lms_verify(const LmsPublicKeyView& key, ByteView message, ByteView signature,
                 const hashes::Backend* preferred) noexcept {
  std::size_t consumed = 0;
  auto sig = parse_lms_signature_prefix(signature, consumed);
  if (!sig) return sig.error();
  if (consumed != signature.size()) return Error::kMalformedSignature;
  return lms_verify_parsed(key, std::span<const ByteView>(&message, 1), *sig, preferred);
}

Error hss_verify(ByteView public_key, ByteView message, ByteView signature,
                 const hashes::Backend* preferred) noexcept {
  return hss_verify_pieces(public_key, std::span<const ByteView>(&message, 1), signature, preferred);
}

Error hss_verify_pieces(ByteView public_key, std::span<const ByteView> message, ByteView signature,
                        const hashes::Backend* preferred) noexcept {
  HssSignatureParts parts;
  const Error parsed = parse_hss_signature(public_key, signature, parts);
  if (parsed != Error::kOk) return parsed;
  for (std::uint32_t level = 0; level < parts.levels; ++level) {
    const std::span<const ByteView> signed_message =
        level + 1 < parts.levels ? std::span<const ByteView>(&parts.keys[level + 1].encoded, 1) : message;
    const Error e = lms_verify_parsed(parts.keys[level], signed_message, parts.sigs[level], preferred);
    if (e != Error::kOk) return e;
  }
  return Error::kOk;
}

}  // namespace klms::lms
