// XMSS and K-XMSS (RFC 8391 §4.1, single tree): key generation from seeds, signing at an index the
// caller chooses, and strict parsing and verification. Encodings (RFC 8391 Appendix B):
//   public key  u32 oid || root (n) || SEED (n)
//   signature   u32 idx || r (n) || sig_ots (len * n) || auth (h * n)
// The index is the caller's business: like the LMS engine, this library never decides on its own
// which index is next; a provider algorithm would take it from a state store (docs/state.md) first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "hashes/backend.h"
#include "xmss/params.h"
#include "xmss/tree.h"

namespace klms::xmss {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;

enum class Error {
  kOk,
  kVerifyFailed,        // well formed, but not a signature of this message under this key
  kMalformedKey,        // wrong length
  kMalformedSignature,  // wrong length, or idx >= 2^h
  kUnknownType,         // the oid names no set this library has
  kBackendMismatch,     // the backend computes another hash family than the set's
  kIndexOutOfRange,     // signing index >= 2^h
  kRandomFailed,        // the OS random source failed
};
std::string_view error_name(Error e) noexcept;

struct PublicKeyView {
  const Params* params = nullptr;
  ByteView root, pub_seed;
};
// Exactly 4 + 2n bytes with a known oid.
Error parse_public_key(ByteView in, PublicKeyView& out) noexcept;

struct SignatureView {
  std::uint32_t idx = 0;
  ByteView r, ots, auth;
};
// Exactly params.signature_bytes(), idx < 2^h.
Error parse_signature(const Params& params, ByteView in, SignatureView& out) noexcept;

// kOk, kVerifyFailed or a parse error. `preferred` picks the backend for the key's hash family
// (study runs); null = the fastest on this CPU.
Error verify(ByteView public_key, ByteView message, ByteView signature,
             const hashes::Backend* preferred = nullptr) noexcept;
// The same with a parsed key and a given backend (which must compute the key's family).
Error verify(const PublicKeyView& key, const hashes::Backend& backend, ByteView message, ByteView signature) noexcept;

// A private key with its whole tree in memory (2^(h+1) - 1 nodes of 32 bytes: 64 MiB at h = 20).
// SK_SEED and SK_PRF are wiped when it goes away.
class PrivateKey {
 public:
  // RFC 8391 / SP 800-208 key generation from n-byte seeds (what the reference implementation's
  // xmss_core_seed_keypair does): builds the tree, so it takes the whole key-generation time.
  static std::optional<PrivateKey> from_seeds(const Params& params, const hashes::Backend& backend,
                                              const std::uint8_t* sk_seed, const std::uint8_t* sk_prf,
                                              const std::uint8_t* pub_seed, Error* error = nullptr);
  // The same with seeds from getrandom(2).
  static std::optional<PrivateKey> generate(const Params& params, const hashes::Backend& backend,
                                            Error* error = nullptr);

  PrivateKey(PrivateKey&&) noexcept;
  PrivateKey& operator=(PrivateKey&&) noexcept;
  PrivateKey(const PrivateKey&) = delete;
  PrivateKey& operator=(const PrivateKey&) = delete;
  ~PrivateKey();

  const Params& params() const noexcept { return params_; }
  const hashes::Backend& backend() const noexcept { return hasher_.backend(); }
  Bytes public_key() const;
  const std::uint8_t* root() const noexcept { return nodes_.root(); }
  // The signature at index idx (kIndexOutOfRange when idx >= 2^h). Signing the same index twice
  // gives the same signature (r is derived from SK_PRF and idx); using an index twice for two
  // messages breaks the scheme — the caller's state store must prevent it.
  Error sign(std::uint32_t idx, ByteView message, Bytes& signature) const;

 private:
  PrivateKey() = default;
  void wipe() noexcept;

  Params params_{};
  Hasher hasher_;
  std::uint8_t sk_seed_[kMaxN] = {};
  std::uint8_t sk_prf_[kMaxN] = {};
  TreeNodes nodes_;
};

}  // namespace klms::xmss
