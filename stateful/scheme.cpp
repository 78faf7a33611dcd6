#include "stateful/scheme.h"

#include <cstdlib>
#include <cstring>

#include "hashes/backend.h"
#include "klms/klms.h"

namespace klms::stateful {

KeyId key_id_of(ByteView public_key) noexcept {
  KeyId id{};
  hashes::sha256_digest(public_key.data(), public_key.size(), id.data());
  return id;
}

ParamsDigest tagged_params_digest(std::string_view scheme_tag, ByteView parameters) {
  static constexpr std::string_view kLabel = "KLMS params";
  if (scheme_tag.empty() || scheme_tag.size() > 255) return ParamsDigest{};  // all zero: binds nothing
  Bytes input;
  input.reserve(kLabel.size() + 1 + scheme_tag.size() + parameters.size());
  input.insert(input.end(), kLabel.begin(), kLabel.end());
  input.push_back(static_cast<std::uint8_t>(scheme_tag.size()));
  input.insert(input.end(), scheme_tag.begin(), scheme_tag.end());
  input.insert(input.end(), parameters.begin(), parameters.end());
  ParamsDigest digest{};
  hashes::sha256_digest(input.data(), input.size(), digest.data());
  return digest;
}

state::KeyBinding key_binding(const Scheme& scheme, ByteView public_key) noexcept {
  return state::KeyBinding{key_id_of(public_key), scheme.params_digest(), scheme.params_in_key_id()};
}

bool seeded_keys_allowed() noexcept {
  const char* v = std::getenv(KLMS_ENV_ALLOW_SEEDED_KEYS);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace klms::stateful
