// The XMSS and XMSS^MT wire format, parsed and written in one place (RFC 8391 Appendix B and C):
//   public key  (§4.1.7, §4.2.2)  u32 oid || root (n) || SEED (n)
//   XMSS signature (§4.1.8)       u32 idx || r (n) || sig_ots (len * n) || auth (h * n)
//   XMSS^MT signature (§4.2.3)    idx (ceil(h / 8) bytes) || r (n)
//                                 || (sig_ots (len * n) || auth (h/d * n)) per layer, bottom first
// The scheme is not in the bytes (XMSS and XMSS^MT share the code numbers): the caller says which.
// Parsing is strict: exact lengths, a type code of a set this library has (a refused standard set is
// kUnknownXmssType too), idx < 2^h, no trailing bytes, never a read past the input. Views point into
// the input. What the fields mean is elsewhere: xmss/verify.h checks them, xmss/signer.h fills them.
//
// Private keys have no RFC encoding. The reference implementation's (github XMSS/xmss-reference,
// its xmssmt_core_seed_keypair) is read and written for the tests and the interoperability tools:
//   u32 oid || idx (index_bytes) || SK_SEED (n) || SK_PRF (n) || root (n) || SEED (n)
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/bytes.h"
#include "base/error.h"
#include "base/secret.h"
#include "xmss/params.h"

namespace klms::xmss {

struct PublicKeyView {
  const Params* params = nullptr;
  ByteView root, pub_seed;
};
// Exactly 4 + 2n bytes with a known code: kMalformedPublicKey (length) or kUnknownXmssType.
Result<PublicKeyView> parse_public_key(Scheme scheme, ByteView in) noexcept;
Bytes encode_public_key(const Params& params, const std::uint8_t* root, const std::uint8_t* pub_seed);

struct LayerSignatureView {
  ByteView ots;   // len * n bytes
  ByteView auth;  // tree_height * n bytes
};
struct SignatureView {
  std::uint64_t idx = 0;
  ByteView r;
  LayerSignatureView layers[kMaxLayers];  // d of them, layer 0 (signing the message) first
};
// Exactly params.signature_bytes() and idx < 2^h, else kMalformedSignature.
Result<SignatureView> parse_signature(const Params& params, ByteView in) noexcept;

// Where a signer puts the fields of a signature being written.
struct SignatureSlots {
  std::uint8_t* r = nullptr;
  std::uint8_t* layers[kMaxLayers] = {};  // each: sig_ots then auth
};
// Writes idx into out (params.signature_bytes() bytes) and says where the other fields go.
SignatureSlots write_signature_frame(const Params& params, std::uint64_t idx, std::uint8_t* out) noexcept;

// The reference implementation's private key (top of this file).
struct ReferencePrivateKey {
  const Params* params = nullptr;
  std::uint64_t idx = 0;
  SecretArray<kMaxN> sk_seed, sk_prf;
  std::uint8_t root[kMaxN] = {};
  std::uint8_t pub_seed[kMaxN] = {};
};
// kMalformedPrivateKey for a wrong length; kUnknownXmssType for a code.
Result<ReferencePrivateKey> parse_reference_private_key(Scheme scheme, ByteView in) noexcept;
SecretBytes encode_reference_private_key(const ReferencePrivateKey& key);

}  // namespace klms::xmss
