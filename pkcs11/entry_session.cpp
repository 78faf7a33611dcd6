// Sessions and logins ("Session management functions" of the specification). The login state is
// the process's, per token, as the specification has it; the PIN checks themselves (scrypt, about
// a tenth of a second) run with the module unlocked.
#include <cstring>

#include "pkcs11/c_boundary.h"

using namespace klms::pkcs11;

namespace {

bool pin_length_ok(CK_ULONG n) { return n >= kMinPinBytes && n <= kMaxPinBytes; }

void end_operations(Module& m, CK_SLOT_ID slot) {
  for (auto& [h, s] : m.sessions) {
    if (s.slot == slot && s.op.kind != Operation::Kind::kSigning) s.op = Operation{};
  }
}

CK_RV login(Module& m, Session& s, ModuleLock& lock, CK_SESSION_HANDLE hSession, CK_USER_TYPE userType,
            CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen) {
  if (userType == CKU_CONTEXT_SPECIFIC) return CKR_OPERATION_NOT_INITIALIZED;  // no key asks for it
  if (userType != CKU_SO && userType != CKU_USER) return CKR_USER_TYPE_INVALID;
  if (pPin == nullptr) return ulPinLen > 0 ? CKR_ARGUMENTS_BAD : CKR_FUNCTION_NOT_SUPPORTED;
  Slot* slot = m.slot(s.slot);
  const Login wanted = userType == CKU_SO ? Login::kSo : Login::kUser;
  if (slot->login == wanted) return CKR_USER_ALREADY_LOGGED_IN;
  if (slot->login != Login::kNone) return CKR_USER_ANOTHER_ALREADY_LOGGED_IN;
  if (wanted == Login::kSo) {
    for (const auto& [h, other] : m.sessions) {
      if (other.slot == s.slot && !other.rw) return CKR_SESSION_READ_ONLY_EXISTS;
    }
  }
  if (!pin_length_ok(ulPinLen)) return CKR_PIN_LEN_RANGE;
  const CK_SLOT_ID slot_id = s.slot;
  TokenStore store = slot->store;  // the check runs unlocked: C_Finalize may free the slot meanwhile
  const klms::SecretBytes pin(pPin, pPin + ulPinLen);
  TokenKey key;
  lock.unlock();
  const CK_RV checked = store.check_pin(wanted == Login::kSo ? Role::kSo : Role::kUser,
                                        klms::ByteView(pin.data(), pin.size()), key);
  lock.lock();
  if (!m.initialized || m.session(hSession) == nullptr) return CKR_SESSION_HANDLE_INVALID;
  if (checked != CKR_OK) return checked;
  slot = m.slot(slot_id);
  if (slot->login != Login::kNone) return slot->login == wanted ? CKR_USER_ALREADY_LOGGED_IN
                                                                : CKR_USER_ANOTHER_ALREADY_LOGGED_IN;
  slot->login = wanted;
  std::memcpy(slot->token_key.data(), key.data(), key.size());
  return CKR_OK;
}

}  // namespace

KLMS_PKCS11_EXPORT CK_RV C_OpenSession(CK_SLOT_ID slotID, CK_FLAGS flags, CK_VOID_PTR, CK_NOTIFY,
                                       CK_SESSION_HANDLE_PTR phSession) {
  return with_module("C_OpenSession", [&](Module& m, ModuleLock&) -> CK_RV {
    Slot* slot = m.slot(slotID);
    if (slot == nullptr) return CKR_SLOT_ID_INVALID;
    if ((flags & CKF_SERIAL_SESSION) == 0) return CKR_SESSION_PARALLEL_NOT_SUPPORTED;
    if (phSession == nullptr) return CKR_ARGUMENTS_BAD;
    CK_RV rv = CKR_OK;
    auto meta = slot->store.load(rv);
    if (rv != CKR_OK) return rv;
    if (!meta) return CKR_TOKEN_NOT_RECOGNIZED;  // not initialized yet: C_InitToken first
    const bool rw = (flags & CKF_RW_SESSION) != 0;
    if (!rw && slot->login == Login::kSo) return CKR_SESSION_READ_WRITE_SO_EXISTS;
    const CK_SESSION_HANDLE h = m.next_session++;
    Session& s = m.sessions[h];
    s.slot = slotID;
    s.rw = rw;
    *phSession = h;
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_CloseSession(CK_SESSION_HANDLE hSession) {
  return with_session("C_CloseSession", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    const CK_SLOT_ID slot = s.slot;
    m.close_session(hSession);
    bool last = true;
    for (const auto& [h, other] : m.sessions) last = last && other.slot != slot;
    if (last) m.slot(slot)->logout();  // the login ends with the application's last session
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_CloseAllSessions(CK_SLOT_ID slotID) {
  return with_module("C_CloseAllSessions", [&](Module& m, ModuleLock&) -> CK_RV {
    Slot* slot = m.slot(slotID);
    if (slot == nullptr) return CKR_SLOT_ID_INVALID;
    std::vector<CK_SESSION_HANDLE> mine;
    for (const auto& [h, s] : m.sessions) {
      if (s.slot == slotID) mine.push_back(h);
    }
    for (CK_SESSION_HANDLE h : mine) m.close_session(h);
    slot->logout();
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GetSessionInfo(CK_SESSION_HANDLE hSession, CK_SESSION_INFO_PTR pInfo) {
  return with_session("C_GetSessionInfo", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    if (pInfo == nullptr) return CKR_ARGUMENTS_BAD;
    pInfo->slotID = s.slot;
    pInfo->state = session_state(m, s);
    pInfo->flags = CKF_SERIAL_SESSION | (s.rw ? CKF_RW_SESSION : 0);
    pInfo->ulDeviceError = s.device_error;
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_Login(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR_PTR pPin,
                                 CK_ULONG ulPinLen) {
  return with_session("C_Login", hSession, [&](Module& m, Session& s, ModuleLock& lock) -> CK_RV {
    return login(m, s, lock, hSession, userType, pPin, ulPinLen);
  });
}

KLMS_PKCS11_EXPORT CK_RV C_LoginUser(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR_PTR pPin,
                                     CK_ULONG ulPinLen, CK_UTF8CHAR_PTR, CK_ULONG ulUsernameLen) {
  return with_session("C_LoginUser", hSession, [&](Module& m, Session& s, ModuleLock& lock) -> CK_RV {
    if (ulUsernameLen != 0) return CKR_FUNCTION_NOT_SUPPORTED;  // a token of one user and one SO
    return login(m, s, lock, hSession, userType, pPin, ulPinLen);
  });
}

KLMS_PKCS11_EXPORT CK_RV C_Logout(CK_SESSION_HANDLE hSession) {
  return with_session("C_Logout", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    Slot* slot = m.slot(s.slot);
    if (slot->login == Login::kNone) return CKR_USER_NOT_LOGGED_IN;
    slot->logout();
    end_operations(m, s.slot);
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_InitPIN(CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen) {
  return with_session("C_InitPIN", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    Slot* slot = m.slot(s.slot);
    if (slot->login != Login::kSo) return CKR_USER_NOT_LOGGED_IN;
    if (!s.rw) return CKR_SESSION_READ_ONLY;
    if (pPin == nullptr) return ulPinLen > 0 ? CKR_ARGUMENTS_BAD : CKR_FUNCTION_NOT_SUPPORTED;
    if (!pin_length_ok(ulPinLen)) return CKR_PIN_LEN_RANGE;
    const CK_RV rv = slot->store.set_pin(Role::kUser, klms::ByteView(pPin, ulPinLen), slot->token_key);
    if (rv == CKR_OK) log_line(LogLevel::kInfo, "token %s: the SO set the user PIN", slot->store.dir().c_str());
    return rv;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_SetPIN(CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pOldPin, CK_ULONG ulOldLen,
                                  CK_UTF8CHAR_PTR pNewPin, CK_ULONG ulNewLen) {
  return with_session("C_SetPIN", hSession, [&](Module& m, Session& s, ModuleLock& lock) -> CK_RV {
    if (!s.rw) return CKR_SESSION_READ_ONLY;
    if (pOldPin == nullptr || pNewPin == nullptr) {
      return ulOldLen > 0 || ulNewLen > 0 ? CKR_ARGUMENTS_BAD : CKR_FUNCTION_NOT_SUPPORTED;
    }
    if (!pin_length_ok(ulOldLen) || !pin_length_ok(ulNewLen)) return CKR_PIN_LEN_RANGE;
    // The PIN of who is logged in; the user's when nobody is.
    const Role role = m.slot(s.slot)->login == Login::kSo ? Role::kSo : Role::kUser;
    TokenStore store = m.slot(s.slot)->store;
    const klms::SecretBytes old_pin(pOldPin, pOldPin + ulOldLen);
    const klms::SecretBytes new_pin(pNewPin, pNewPin + ulNewLen);
    lock.unlock();
    TokenKey key;
    CK_RV rv = store.check_pin(role, klms::ByteView(old_pin.data(), old_pin.size()), key);
    if (rv == CKR_OK) rv = store.set_pin(role, klms::ByteView(new_pin.data(), new_pin.size()), key);
    lock.lock();
    if (rv == CKR_OK) {
      log_line(LogLevel::kInfo, "token %s: the %s changed the %s PIN", store.dir().c_str(),
               role == Role::kSo ? "SO" : "user", role == Role::kSo ? "SO" : "user");
    }
    return rv;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_SessionCancel(CK_SESSION_HANDLE hSession, CK_FLAGS flags) {
  return with_session("C_SessionCancel", hSession, [&](Module&, Session& s, ModuleLock&) -> CK_RV {
    constexpr CK_FLAGS kFindObjects = 0x00000040UL;  // CKF_FIND_OBJECTS
    switch (s.op.kind) {
      case Operation::Kind::kSigning: return 0x00000202UL;  // CKR_OPERATION_CANCEL_FAILED: the index is taken
      case Operation::Kind::kSign:
        if ((flags & CKF_SIGN) != 0) s.op = Operation{};
        break;
      case Operation::Kind::kVerify:
        if ((flags & CKF_VERIFY) != 0) s.op = Operation{};
        break;
      case Operation::Kind::kFind:
        if ((flags & kFindObjects) != 0) s.op = Operation{};
        break;
      case Operation::Kind::kNone: break;
    }
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GetOperationState(CK_SESSION_HANDLE hSession, CK_BYTE_PTR, CK_ULONG_PTR) {
  return with_session("C_GetOperationState", hSession, [&](Module&, Session&, ModuleLock&) -> CK_RV {
    return CKR_FUNCTION_NOT_SUPPORTED;  // a signature's state must never leave the token
  });
}

KLMS_PKCS11_EXPORT CK_RV C_SetOperationState(CK_SESSION_HANDLE hSession, CK_BYTE_PTR, CK_ULONG, CK_OBJECT_HANDLE,
                                             CK_OBJECT_HANDLE) {
  return with_session("C_SetOperationState", hSession, [&](Module&, Session&, ModuleLock&) -> CK_RV {
    return CKR_FUNCTION_NOT_SUPPORTED;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GetFunctionStatus(CK_SESSION_HANDLE hSession) {
  return with_session("C_GetFunctionStatus", hSession, [&](Module&, Session&, ModuleLock&) -> CK_RV {
    return CKR_FUNCTION_NOT_PARALLEL;  // legacy: every function runs in its caller's thread
  });
}

KLMS_PKCS11_EXPORT CK_RV C_CancelFunction(CK_SESSION_HANDLE hSession) {
  return with_session("C_CancelFunction", hSession, [&](Module&, Session&, ModuleLock&) -> CK_RV {
    return CKR_FUNCTION_NOT_PARALLEL;
  });
}
