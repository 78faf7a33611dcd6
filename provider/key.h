// The key object the key manager hands to OpenSSL: immutable key material shared by every copy
// (EVP_PKEY_dup, repeated decodes share the signer and the state handle through the registries).
// One object for every scheme: the stateful layer (stateful/signing_session.h) signs any of them;
// the scheme's own parts say what the public key is and how the private key is encoded.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lms/private_key.h"
#include "state/store.h"
#include "lms/verify.h"
#include "provider/algorithms.h"
#include "provider/exhaustion_warning.h"
#include "provider/provider_context.h"
#include "stateful/configuration.h"
#include "stateful/signing_session.h"
#include "stateful/state_location.h"
#include "xmss/params.h"
#include "xmss/xmss_scheme.h"

namespace klms::provider {

struct KeyMaterial {
  KeyScheme scheme = KeyScheme::kHss;
  klms::Bytes public_key;  // the scheme's raw public key (HSS: u32(L) || LMS public key; XMSS: RFC 8391)
  // HSS/LMS: L and the top level (from the public key), and the private key.
  std::uint32_t levels = 0;
  lms::LevelParams top;
  std::optional<lms::HssPrivateKey> private_key;
  // XMSS and XMSS^MT: the set (from the public key) and the private key.
  const xmss::Params* xmss = nullptr;
  std::optional<xmss::XmssPrivateKey> xmss_private_key;
  state::KeyId key_id{};  // SHA-256 of public_key
  // Private keys: what the state file is bound to besides the key id (HSS: every level's parameter
  // sets; XMSS: the tagged type code).
  state::ParamsDigest params_digest{};
  // The signer for the key's own state file and the state handles this key signed through, kept
  // while any copy of the key lives (stateful/signing_session.h).
  mutable stateful::KeptSigning kept;

  bool has_private() const noexcept { return private_key.has_value() || xmss_private_key.has_value(); }
  // The private key as the stateful layer sees it; null for a public key.
  const stateful::PrivateKey* stateful_private() const noexcept {
    if (private_key) return &*private_key;
    if (xmss_private_key) return &*xmss_private_key;
    return nullptr;
  }
  // Private keys only.
  const std::string& state_file() const noexcept { return stateful_private()->state_file; }
  // What the state file must be bound to (docs/state.md §16): an XMSS type code names every layer.
  state::KeyBinding binding() const noexcept {
    return state::KeyBinding{key_id, params_digest, scheme != KeyScheme::kHss || levels == 1};
  }
  // What a signing session signs with; private keys only.
  stateful::SigningKey signing_key() const noexcept {
    return stateful::SigningKey{stateful_private(), public_key, binding(), &kept};
  }
  // Exact for private keys, XMSS and L = 1; for HSS public keys with L > 1 an upper bound.
  std::size_t max_signature_bytes() const noexcept;
  // Private keys: the number of indices.
  std::uint64_t max_signatures() const noexcept;
  // 8 n (HSS: 8 m of the top level).
  int security_bits() const noexcept;
  const SchemeIdentity& identity() const noexcept { return scheme_identity(scheme); }
};

// Parses a raw HSS public key; null (with the engine's error in `error`) when malformed.
std::shared_ptr<const KeyMaterial> make_public_material(klms::ByteView public_key, klms::Error& error);
// From a decoded private key and the public key stored with it; checks that they belong together
// (types, I) without building any tree.
std::shared_ptr<const KeyMaterial> make_private_material(lms::HssPrivateKey private_key, klms::ByteView public_key,
                                                         klms::Error& error);

// XMSS (scheme kXmss) or XMSS^MT (kXmssMt) raw public key; null (with the engine's error) when malformed.
std::shared_ptr<const KeyMaterial> make_xmss_public_material(KeyScheme scheme, klms::ByteView public_key,
                                                             klms::Error& error);
// From a decoded XMSS private key and the public key stored with it; checks that they belong
// together (set, SEED) without building any tree.
std::shared_ptr<const KeyMaterial> make_xmss_private_material(xmss::XmssPrivateKey private_key,
                                                              klms::ByteView public_key, klms::Error& error);
// The public key of `scheme`.
std::shared_ptr<const KeyMaterial> make_public_material(KeyScheme scheme, klms::ByteView public_key,
                                                        klms::Error& error);

struct ProviderKey {
  ProviderContext* provider = nullptr;
  std::shared_ptr<const KeyMaterial> material;  // null until generated, imported or loaded
  std::uint8_t algorithm = 0;  // the key manager that made it (provider/algorithms.h key_algorithms)
};

// A decoder hands a key to the key manager by reference (OSSL_OBJECT_PARAM_REFERENCE): the
// reference is the bytes of a ProviderKey* itself, so its size is the size of the pointer.
// NOLINTNEXTLINE(bugprone-sizeof-expression): the pointer's own size is meant
inline constexpr std::size_t kKeyReferenceBytes = sizeof(ProviderKey*);

// docs/state.md "Where the state lives": the state directory from KLMS_STATE_DIR, the configuration,
// $XDG_STATE_HOME/klms or ~/.local/state/klms; created 0700 when missing. Empty when none works.
inline std::string default_state_directory(const ProviderContext& provider) {
  return stateful::default_state_directory(provider.config);
}

// Signing's options: the stateful layer's, and the line on stderr when a key nears its
// acknowledgement stop (provider/exhaustion_warning.h).
inline state::StateOptions state_options(const ProviderContext& provider) noexcept {
  state::StateOptions options = stateful::state_options(provider.config);
  options.low_signatures_notice = &write_exhaustion_warning;
  return options;
}

}  // namespace klms::provider
