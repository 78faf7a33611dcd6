// The key object the key manager hands to OpenSSL: immutable key material shared by every copy
// (EVP_PKEY_dup, repeated decodes share the signer and the state handle through the registries).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lms/private_key.h"
#include "state/store.h"
#include "lms/verify.h"
#include "provider/exhaustion_warning.h"
#include "provider/provider_context.h"
#include "stateful/configuration.h"
#include "stateful/signing_session.h"
#include "stateful/state_location.h"

namespace klms::provider {

struct KeyMaterial {
  klms::Bytes public_key;  // raw HSS public key, u32(L) || LMS public key
  std::uint32_t levels = 0;
  lms::LevelParams top;
  std::optional<lms::HssPrivateKey> private_key;
  state::KeyId key_id{};  // SHA-256 of public_key
  state::ParamsDigest levels_digest{};  // private keys: every level's parameter sets, bound to the state file
  // The signer for the key's own state file and the state handles this key signed through, kept
  // while any copy of the key lives (stateful/signing_session.h).
  mutable stateful::KeptSigning kept;

  bool has_private() const noexcept { return private_key.has_value(); }
  // What the state file must be bound to (docs/state.md §16).
  state::KeyBinding binding() const noexcept {
    return state::KeyBinding{key_id, levels_digest, levels == 1};
  }
  // What a signing session signs with; private keys only.
  stateful::SigningKey signing_key() const noexcept {
    return stateful::SigningKey{private_key ? &*private_key : nullptr, public_key, binding(), &kept};
  }
  // Exact for private keys and L = 1; for public keys with L > 1 an upper bound.
  std::size_t max_signature_bytes() const noexcept;
};

// Parses a raw HSS public key; null (with the engine's error in `error`) when malformed.
std::shared_ptr<const KeyMaterial> make_public_material(klms::ByteView public_key, klms::Error& error);
// From a decoded private key and the public key stored with it; checks that they belong together
// (types, I) without building any tree.
std::shared_ptr<const KeyMaterial> make_private_material(lms::HssPrivateKey private_key, klms::ByteView public_key,
                                                         klms::Error& error);

struct HssKey {
  ProviderContext* provider = nullptr;
  std::shared_ptr<const KeyMaterial> material;  // null until generated, imported or loaded
};

// A decoder hands a key to the key manager by reference (OSSL_OBJECT_PARAM_REFERENCE): the
// reference is the bytes of an HssKey* itself, so its size is the size of the pointer.
// NOLINTNEXTLINE(bugprone-sizeof-expression): the pointer's own size is meant
inline constexpr std::size_t kKeyReferenceBytes = sizeof(HssKey*);

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
