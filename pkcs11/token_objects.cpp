#include "pkcs11/token_objects.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pkcs11/log.h"
#include "pkcs11/record_file.h"

namespace klms::pkcs11 {

bool new_uid(std::string& out) {
  static const char kHex[] = "0123456789abcdef";
  std::uint8_t bytes[16];
  if (!random_bytes(bytes, sizeof bytes)) return false;
  out.clear();
  for (std::uint8_t b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return true;
}

CK_RV store_token_object(const std::string& token_dir, const Object& object) {
  if (!write_file_atomically(object_path(token_dir, object.uid), serialize_object(object))) {
    log_line(LogLevel::kError, "token %s: cannot write object %s: %s", token_dir.c_str(), object.uid.c_str(),
             std::strerror(errno));
    return CKR_DEVICE_ERROR;
  }
  return CKR_OK;
}

CK_RV destroy_token_object(Slot& slot, const Object& object) {
  if (object.klass == CKO_PRIVATE_KEY) {
    const std::string state = state_path(slot.store.dir(), object.uid);
    const Error e = engine::retire(state, slot.store.config().policy);
    if (e != Error::kOk && e != Error::kStateMissing) {
      // The object goes anyway: without its sealed octets nothing can sign with this state file.
      log_line(LogLevel::kWarning, "destroying key %s: its state file %s was not retired: %s", object.uid.c_str(),
               state.c_str(), engine::explain(e, state).c_str());
    }
    slot.signing_keys.erase(object.uid);
  }
  const std::string path = object_path(slot.store.dir(), object.uid);
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    log_line(LogLevel::kError, "cannot remove %s: %s", path.c_str(), std::strerror(errno));
    return CKR_DEVICE_ERROR;
  }
  log_line(LogLevel::kInfo, "token %s: destroyed %s key %s", slot.store.dir().c_str(),
           object.klass == CKO_PRIVATE_KEY ? "private" : "public", object.uid.c_str());
  return CKR_OK;
}

CK_RV destroy_all_token_objects(Module& m, Slot& slot) {
  CK_RV rv = CKR_OK;
  for (const std::string& uid : m.token_uids(slot)) {
    const std::string path = object_path(slot.store.dir(), uid);
    auto text = read_small_file(path);
    std::optional<Object> object = text ? parse_object(*text, uid) : std::nullopt;
    if (object) {
      if (const CK_RV r = destroy_token_object(slot, *object); r != CKR_OK) rv = r;
    } else if (unlink(path.c_str()) != 0 && errno != ENOENT) {
      rv = CKR_DEVICE_ERROR;
    }
  }
  return rv;
}

}  // namespace klms::pkcs11
