// The key object the key manager hands to OpenSSL: immutable key material shared by every copy
// (EVP_PKEY_dup, repeated decodes share the signer and the state handle through the registries).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lms/private_key.h"
#include "lms/signer.h"
#include "state/store.h"
#include "lms/verify.h"
#include "provider/provider_context.h"

namespace klms::provider {

struct KeyMaterial {
  klms::Bytes public_key;  // raw HSS public key, u32(L) || LMS public key
  std::uint32_t levels = 0;
  lms::LevelParams top;
  std::optional<lms::HssPrivateKey> private_key;
  state::KeyId key_id{};  // SHA-256 of public_key
  state::LevelsDigest levels_digest{};  // private keys: every level's parameter sets, bound to the state file
  // The signer for the key's own state file, kept while any copy of the key lives so that its
  // in-memory trees survive between signatures.
  mutable std::mutex signer_mutex;
  mutable std::shared_ptr<lms::Signer> own_signer;
  // The process own_signer was made in: a fork or clone makes its own (the copy's mutexes may be
  // held by threads that do not exist there; docs/state.md §15).
  mutable std::uint64_t own_signer_owner = 0;
  // The state handles this key signed through (its own state file and any `state-file` override),
  // kept while any copy of the key lives: a handle holds the process's reservation (docs/state.md §8),
  // and the registry only keeps handles that somebody holds. Guarded by signer_mutex.
  mutable std::map<std::string, std::shared_ptr<state::StateHandle>> state_handles;

  bool has_private() const noexcept { return private_key.has_value(); }
  // What the state file must be bound to (docs/state.md §16).
  state::KeyBinding binding() const noexcept {
    return state::KeyBinding{key_id, levels_digest, levels == 1};
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
std::string default_state_directory(const ProviderContext& provider);

// The signer of a private key for a state file, shared by every key object and context in this
// process that signs with the same key and state file.
klms::Result<std::shared_ptr<lms::Signer>> shared_signer(const KeyMaterial& key, const std::string& state_file);

// What `openssl pkey -text`, `-check` and `remaining-signatures` report about the state, found with
// exactly the checks signing runs (the same StateHandle::open): `error` is kOk when signing would
// accept the file, else what signing would refuse it with. `info` is what the file says when it
// can be read at all (also for a refused file), `remaining` what the file has left.
struct StateSummary {
  klms::Error error = klms::Error::kOk;
  bool have_info = false;
  state::StateInfo info;
  std::uint64_t remaining = 0;
};
state::StateOptions state_options(const ProviderContext& provider) noexcept;
StateSummary summarize_state(const KeyMaterial& key, const state::StateOptions& options);

}  // namespace klms::provider
