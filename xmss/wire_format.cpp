#include "xmss/wire_format.h"

#include <cstring>

namespace klms::xmss {
namespace {

std::uint64_t get_be(const std::uint8_t* p, std::size_t len) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < len; ++i) v = v << 8 | p[i];
  return v;
}

void put_be(std::uint8_t* p, std::size_t len, std::uint64_t v) noexcept {
  for (std::size_t i = len; i > 0; --i) {
    p[i - 1] = static_cast<std::uint8_t>(v);
    v >>= 8;
  }
}

}  // namespace

Result<PublicKeyView> parse_public_key(Scheme scheme, ByteView in) noexcept {
  if (in.size() < 4) return Error::kMalformedPublicKey;
  const Params* p = find_params(scheme, get_u32(in.data()));
  if (p == nullptr) return Error::kUnknownXmssType;
  if (in.size() != p->public_key_bytes()) return Error::kMalformedPublicKey;
  PublicKeyView out;
  out.params = p;
  out.root = in.subspan(4, p->n);
  out.pub_seed = in.subspan(4 + p->n, p->n);
  return out;
}

Bytes encode_public_key(const Params& params, const std::uint8_t* root, const std::uint8_t* pub_seed) {
  Bytes out(params.public_key_bytes());
  put_u32(out.data(), params.oid);
  std::memcpy(out.data() + 4, root, params.n);
  std::memcpy(out.data() + 4 + params.n, pub_seed, params.n);
  return out;
}

Result<SignatureView> parse_signature(const Params& params, ByteView in) noexcept {
  if (in.size() != params.signature_bytes()) return Error::kMalformedSignature;
  const std::size_t index_bytes = params.index_bytes();
  const std::uint64_t idx = get_be(in.data(), index_bytes);
  if (idx >= params.leaves()) return Error::kMalformedSignature;
  const std::size_t n = params.n;
  SignatureView out;
  out.idx = idx;
  out.r = in.subspan(index_bytes, n);
  std::size_t at = index_bytes + n;
  for (unsigned i = 0; i < params.d; ++i) {
    out.layers[i].ots = in.subspan(at, std::size_t{params.len} * n);
    at += std::size_t{params.len} * n;
    out.layers[i].auth = in.subspan(at, std::size_t{params.tree_height()} * n);
    at += std::size_t{params.tree_height()} * n;
  }
  return out;
}

SignatureSlots write_signature_frame(const Params& params, std::uint64_t idx, std::uint8_t* out) noexcept {
  const std::size_t index_bytes = params.index_bytes();
  put_be(out, index_bytes, idx);
  SignatureSlots slots;
  slots.r = out + index_bytes;
  std::uint8_t* at = out + index_bytes + params.n;
  for (unsigned i = 0; i < params.d; ++i) {
    slots.layers[i] = at;
    at += params.layer_signature_bytes();
  }
  return slots;
}

Result<ReferencePrivateKey> parse_reference_private_key(Scheme scheme, ByteView in) noexcept {
  if (in.size() < 4) return Error::kMalformedPrivateKey;
  const Params* p = find_params(scheme, get_u32(in.data()));
  if (p == nullptr) return Error::kUnknownXmssType;
  const std::size_t n = p->n, index_bytes = p->index_bytes();
  if (in.size() != 4 + index_bytes + 4 * n) return Error::kMalformedPrivateKey;
  ReferencePrivateKey key;
  key.params = p;
  const std::uint8_t* at = in.data() + 4;
  key.idx = get_be(at, index_bytes);
  at += index_bytes;
  std::memcpy(key.sk_seed.data(), at, n);
  std::memcpy(key.sk_prf.data(), at + n, n);
  std::memcpy(key.root, at + 2 * n, n);
  std::memcpy(key.pub_seed, at + 3 * n, n);
  return key;
}

SecretBytes encode_reference_private_key(const ReferencePrivateKey& key) {
  const Params& p = *key.params;
  const std::size_t n = p.n, index_bytes = p.index_bytes();
  SecretBytes out(4 + index_bytes + 4 * n);
  put_u32(out.data(), p.oid);
  std::uint8_t* at = out.data() + 4;
  put_be(at, index_bytes, key.idx);
  at += index_bytes;
  std::memcpy(at, key.sk_seed.data(), n);
  std::memcpy(at + n, key.sk_prf.data(), n);
  std::memcpy(at + 2 * n, key.root, n);
  std::memcpy(at + 3 * n, key.pub_seed, n);
  return out;
}

}  // namespace klms::xmss
