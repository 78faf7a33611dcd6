#include "pkcs11/signing_keys.h"

#include "pkcs11/log.h"

namespace klms::pkcs11 {

CK_RV open_signing_key(Slot& slot, const Object& object, std::shared_ptr<engine::SigningKey>& out) {
  if (slot.login != Login::kUser) return CKR_USER_NOT_LOGGED_IN;
  if (auto it = slot.signing_keys.find(object.uid); it != slot.signing_keys.end()) {
    out = it->second;
    return CKR_OK;
  }
  SecretBytes octets;
  if (!open_sealed(slot.token_key, ByteView(object.sealed.data(), object.sealed.size()),
                   sealing_context(object.uid, object.public_key), octets)) {
    log_line(LogLevel::kError, "key %s: its sealed private key does not open with this token's key: the object file "
             "was changed or comes from another token", object.uid.c_str());
    return CKR_FUNCTION_FAILED;
  }
  const std::string state = state_path(slot.store.dir(), object.uid);
  auto loaded = engine::SigningKey::load(ByteView(octets.data(), octets.size()),
                                         ByteView(object.public_key.data(), object.public_key.size()), state);
  if (!loaded) {
    log_line(LogLevel::kError, "key %s: its private key does not load: %s", object.uid.c_str(),
             engine::explain(loaded.error(), state).c_str());
    return CKR_FUNCTION_FAILED;
  }
  out = std::shared_ptr<engine::SigningKey>(std::move(*loaded));
  slot.signing_keys[object.uid] = out;
  return CKR_OK;
}

RemainingReader remaining_reader(Slot& slot, const Object& object) {
  return [&slot, &object](std::uint64_t& n) {
    std::shared_ptr<engine::SigningKey> key;
    if (open_signing_key(slot, object, key) != CKR_OK) return false;
    auto left = key->remaining(slot.store.config().policy);
    if (!left) {
      log_line(LogLevel::kError, "key %s: CKA_HSS_KEYS_REMAINING: the state file is refused: %s", object.uid.c_str(),
               engine::explain(left.error(), key->state_file()).c_str());
      return false;
    }
    n = *left;
    return true;
  };
}

}  // namespace klms::pkcs11
