// XMSS and K-XMSS (RFC 8391 §4.1, single tree): key generation from seeds, signing at an index the
// caller gives, and strict parsing and verification. Encodings (RFC 8391 Appendix B):
//   public key  u32 oid || root (n) || SEED (n)
//   signature   u32 idx || r (n) || sig_ots (len * n) || auth (h * n)
// Errors, byte strings and wiped secrets are base/'s (base/error.h, base/bytes.h, base/secret.h),
// as in the LMS engine.
//
// The index is the caller's business: like the LMS engine, this library never decides on its own
// which index is next. It takes the index as a plain number, not as the engine's IndexLease
// (state/index_lease.h): a lease is only worth something because only the state store can make
// one, and xmss/ sits below state/ (docs/design.md "Libraries and layering"). A provider algorithm
// would reserve a lease first and pass its consume() here; the index is 64 bits wide so that such
// a value is never narrowed (a wrapped index would be a reused one).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/bytes.h"
#include "base/error.h"
#include "base/secret.h"
#include "hashes/backend.h"
#include "xmss/params.h"
#include "xmss/tree.h"

namespace klms::xmss {

struct PublicKeyView {
  const Params* params = nullptr;
  ByteView root, pub_seed;
};
// Exactly 4 + 2n bytes with a known oid: kMalformedPublicKey (wrong length) or kUnknownXmssType.
// The views point into `in`.
Result<PublicKeyView> parse_public_key(ByteView in) noexcept;

struct SignatureView {
  std::uint32_t idx = 0;
  ByteView r, ots, auth;
};
// Exactly params.signature_bytes() and idx < 2^h, else kMalformedSignature. The views point into `in`.
Result<SignatureView> parse_signature(const Params& params, ByteView in) noexcept;

// kOk, kVerifyFailed or a parse error. `preferred` picks the backend for the key's hash family
// (study runs); null = the fastest on this CPU.
Error verify(ByteView public_key, ByteView message, ByteView signature,
             const hashes::Backend* preferred = nullptr) noexcept;
// The same with a parsed key and a given backend, which must compute the key's family
// (kBackendMismatch otherwise).
Error verify(const PublicKeyView& key, const hashes::Backend& backend, ByteView message, ByteView signature) noexcept;

// A private key with its whole tree in memory (2^(h+1) - 1 nodes of 32 bytes: 64 MiB at h = 20).
// SK_SEED and SK_PRF are wiped when it goes away.
class PrivateKey {
 public:
  // RFC 8391 / SP 800-208 key generation from n-byte seeds (what the reference implementation's
  // xmss_core_seed_keypair does): builds the tree, so it takes the whole key-generation time.
  // kBackendMismatch when the backend is not of the set's family, kBadSeedLength when a seed is
  // not n bytes.
  static Result<PrivateKey> from_seeds(const Params& params, const hashes::Backend& backend, ByteView sk_seed,
                                       ByteView sk_prf, ByteView pub_seed);
  // The same with seeds from getrandom(2) (kInternal if it fails, as the state store's random bytes).
  static Result<PrivateKey> generate(const Params& params, const hashes::Backend& backend);

  PrivateKey(PrivateKey&&) noexcept;
  PrivateKey& operator=(PrivateKey&&) noexcept;
  PrivateKey(const PrivateKey&) = delete;
  PrivateKey& operator=(const PrivateKey&) = delete;
  ~PrivateKey();

  const Params& params() const noexcept { return params_; }
  const hashes::Backend& backend() const noexcept { return hasher_.backend(); }
  Bytes public_key() const;
  const std::uint8_t* root() const noexcept { return nodes_.root(); }
  // The signature at `index`, which the caller's state store has recorded as used (see the top of
  // this file); kExhausted when index >= 2^h, as the LMS signer answers an index past its key's
  // last. Signing the same index twice gives the same signature (r is derived from SK_PRF and the
  // index); using an index twice for two messages breaks the scheme.
  Result<Bytes> sign(std::uint64_t index, ByteView message) const;

 private:
  PrivateKey() = default;
  void wipe_seeds() noexcept;

  Params params_{};
  Hasher hasher_;
  SecretArray<kMaxN> sk_seed_;
  SecretArray<kMaxN> sk_prf_;
  TreeNodes nodes_;
};

}  // namespace klms::xmss
