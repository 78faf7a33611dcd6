// Signing and verification with CKM_HSS ("Signing and MACing functions", "Functions for verifying
// signatures and MACs", and the HSS section of the specification). CKM_HSS is single-part: the
// multi-part entries answer CKR_FUNCTION_NOT_SUPPORTED for it. An index leaves the state file only
// in a signature the caller receives (docs/pkcs11.md "Signing"): the length query and
// CKR_BUFFER_TOO_SMALL are answered from the parameter sets before anything is reserved, and the
// signature is written into the caller's buffer by the call that made it.
#include <cstring>

#include "pkcs11/c_boundary.h"
#include "pkcs11/signing_keys.h"

using namespace klms::pkcs11;

namespace {

CK_RV check_mechanism(const CK_MECHANISM* mechanism) {
  if (mechanism == nullptr) return CKR_ARGUMENTS_BAD;
  if (mechanism->mechanism != CKM_HSS) return CKR_MECHANISM_INVALID;
  if (mechanism->pParameter != nullptr || mechanism->ulParameterLen != 0) return CKR_MECHANISM_PARAM_INVALID;
  return CKR_OK;
}

CK_RV key_object(Module& m, const Session& s, CK_OBJECT_HANDLE h, Object& o) {
  const CK_RV rv = m.read_object(h, s, o);
  return rv == CKR_OBJECT_HANDLE_INVALID ? CKR_KEY_HANDLE_INVALID : rv;
}

// The CKR of a refused signature (docs/pkcs11.md "Return values"): an exhausted key is
// CKR_KEY_EXHAUSTED; every refusal of the state file, its witness or the key is CKR_FUNCTION_FAILED,
// with the engine's error code in the session's ulDeviceError and the reason in the log.
CK_RV sign_error_rv(klms::Error e) {
  return e == klms::Error::kExhausted ? CKR_KEY_EXHAUSTED : CKR_FUNCTION_FAILED;
}

// The multi-part entries: the operation ends, as any error ends it.
CK_RV single_part_only(Session& s, Operation::Kind kind) {
  if (s.op.kind == Operation::Kind::kSigning) return CKR_OPERATION_ACTIVE;
  if (s.op.kind != kind) return CKR_OPERATION_NOT_INITIALIZED;
  s.op = Operation{};
  return CKR_FUNCTION_NOT_SUPPORTED;
}

}  // namespace

KLMS_PKCS11_EXPORT CK_RV C_SignInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey) {
  return with_session("C_SignInit", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    if (s.op.kind != Operation::Kind::kNone) return CKR_OPERATION_ACTIVE;
    if (const CK_RV rv = check_mechanism(pMechanism); rv != CKR_OK) return rv;
    Slot* slot = m.slot(s.slot);
    if (slot->login != Login::kUser) return CKR_USER_NOT_LOGGED_IN;
    Object o;
    if (const CK_RV rv = key_object(m, s, hKey, o); rv != CKR_OK) return rv;
    if (o.klass != CKO_PRIVATE_KEY) return CKR_KEY_TYPE_INCONSISTENT;
    if (!o.usable) return CKR_KEY_FUNCTION_NOT_PERMITTED;
    std::shared_ptr<engine::SigningKey> key;
    if (const CK_RV rv = open_signing_key(*slot, o, key); rv != CKR_OK) return rv;
    s.op = Operation{};
    s.op.kind = Operation::Kind::kSign;
    s.op.key = hKey;
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_Sign(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
                                CK_BYTE_PTR pSignature, CK_ULONG_PTR pulSignatureLen) {
  return with_session("C_Sign", hSession, [&](Module& m, Session& s, ModuleLock& lock) -> CK_RV {
    if (s.op.kind == Operation::Kind::kSigning) return CKR_OPERATION_ACTIVE;
    if (s.op.kind != Operation::Kind::kSign) return CKR_OPERATION_NOT_INITIALIZED;
    if (pulSignatureLen == nullptr || (pData == nullptr && ulDataLen > 0)) {
      s.op = Operation{};
      return CKR_ARGUMENTS_BAD;
    }
    Slot* slot = m.slot(s.slot);
    Object o;
    std::shared_ptr<engine::SigningKey> key;
    CK_RV rv = key_object(m, s, s.op.key, o);
    if (rv == CKR_OK) rv = open_signing_key(*slot, o, key);
    if (rv != CKR_OK) {
      s.op = Operation{};
      return rv;
    }
    // The length is the parameter sets' (RFC 8554 §6.2): known without touching the state file.
    const CK_ULONG needed = key->signature_bytes();
    if (pSignature == nullptr) {
      *pulSignatureLen = needed;
      return CKR_OK;
    }
    if (*pulSignatureLen < needed) {
      *pulSignatureLen = needed;
      return CKR_BUFFER_TOO_SMALL;
    }
    s.op.kind = Operation::Kind::kSigning;
    const engine::StatePolicy policy = slot->store.config().policy;
    const std::string uid = o.uid;
    lock.unlock();
    std::string step;
    auto signature = key->sign(klms::ByteView(pData, ulDataLen), policy, step);
    if (signature && signature->size() == needed) std::memcpy(pSignature, signature->data(), needed);
    lock.lock();
    Session* again = m.initialized ? m.session(hSession) : nullptr;
    if (again != nullptr) {
      again->op = Operation{};
      again->device_error = signature ? 0 : static_cast<CK_ULONG>(signature.error());
    }
    if (!signature) {
      log_line(LogLevel::kError, "key %s: C_Sign refused while %s: %s", uid.c_str(), step.c_str(),
               engine::explain(signature.error(), key->state_file()).c_str());
      return sign_error_rv(signature.error());
    }
    if (signature->size() != needed) {
      log_line(LogLevel::kError, "key %s: a signature of %zu bytes where %lu were expected", uid.c_str(),
               signature->size(), static_cast<unsigned long>(needed));
      return CKR_GENERAL_ERROR;
    }
    *pulSignatureLen = needed;
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_SignUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR, CK_ULONG) {
  return with_session("C_SignUpdate", hSession, [&](Module&, Session& s, ModuleLock&) -> CK_RV {
    return single_part_only(s, Operation::Kind::kSign);
  });
}

KLMS_PKCS11_EXPORT CK_RV C_SignFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR, CK_ULONG_PTR) {
  return with_session("C_SignFinal", hSession, [&](Module&, Session& s, ModuleLock&) -> CK_RV {
    return single_part_only(s, Operation::Kind::kSign);
  });
}

KLMS_PKCS11_EXPORT CK_RV C_SignRecoverInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE) {
  return with_session("C_SignRecoverInit", hSession, [&](Module&, Session& s, ModuleLock&) -> CK_RV {
    if (s.op.kind != Operation::Kind::kNone) return CKR_OPERATION_ACTIVE;
    return pMechanism == nullptr ? CKR_ARGUMENTS_BAD : CKR_MECHANISM_INVALID;  // no mechanism recovers data
  });
}

KLMS_PKCS11_EXPORT CK_RV C_SignRecover(CK_SESSION_HANDLE hSession, CK_BYTE_PTR, CK_ULONG, CK_BYTE_PTR, CK_ULONG_PTR) {
  return with_session("C_SignRecover", hSession, [&](Module&, Session&, ModuleLock&) -> CK_RV {
    return CKR_OPERATION_NOT_INITIALIZED;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_VerifyInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey) {
  return with_session("C_VerifyInit", hSession, [&](Module& m, Session& s, ModuleLock&) -> CK_RV {
    if (s.op.kind != Operation::Kind::kNone) return CKR_OPERATION_ACTIVE;
    if (const CK_RV rv = check_mechanism(pMechanism); rv != CKR_OK) return rv;
    Object o;
    if (const CK_RV rv = key_object(m, s, hKey, o); rv != CKR_OK) return rv;
    if (o.klass != CKO_PUBLIC_KEY) return CKR_KEY_TYPE_INCONSISTENT;
    if (!o.usable) return CKR_KEY_FUNCTION_NOT_PERMITTED;
    s.op = Operation{};
    s.op.kind = Operation::Kind::kVerify;
    s.op.key = hKey;
    s.op.public_key = std::move(o.public_key);
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_Verify(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
                                  CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen) {
  return with_session("C_Verify", hSession, [&](Module&, Session& s, ModuleLock&) -> CK_RV {
    if (s.op.kind != Operation::Kind::kVerify) return CKR_OPERATION_NOT_INITIALIZED;
    const klms::Bytes key = std::move(s.op.public_key);
    s.op = Operation{};
    if ((pData == nullptr && ulDataLen > 0) || (pSignature == nullptr && ulSignatureLen > 0)) return CKR_ARGUMENTS_BAD;
    const klms::Error e = engine::verify(klms::ByteView(key.data(), key.size()), klms::ByteView(pData, ulDataLen),
                                         klms::ByteView(pSignature, ulSignatureLen));
    return e == klms::Error::kOk ? CKR_OK : CKR_SIGNATURE_INVALID;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_VerifyUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR, CK_ULONG) {
  return with_session("C_VerifyUpdate", hSession, [&](Module&, Session& s, ModuleLock&) -> CK_RV {
    return single_part_only(s, Operation::Kind::kVerify);
  });
}

KLMS_PKCS11_EXPORT CK_RV C_VerifyFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR, CK_ULONG) {
  return with_session("C_VerifyFinal", hSession, [&](Module&, Session& s, ModuleLock&) -> CK_RV {
    return single_part_only(s, Operation::Kind::kVerify);
  });
}

KLMS_PKCS11_EXPORT CK_RV C_VerifyRecoverInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE) {
  return with_session("C_VerifyRecoverInit", hSession, [&](Module&, Session& s, ModuleLock&) -> CK_RV {
    if (s.op.kind != Operation::Kind::kNone) return CKR_OPERATION_ACTIVE;
    return pMechanism == nullptr ? CKR_ARGUMENTS_BAD : CKR_MECHANISM_INVALID;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_VerifyRecover(CK_SESSION_HANDLE hSession, CK_BYTE_PTR, CK_ULONG, CK_BYTE_PTR, CK_ULONG_PTR) {
  return with_session("C_VerifyRecover", hSession, [&](Module&, Session&, ModuleLock&) -> CK_RV {
    return CKR_OPERATION_NOT_INITIALIZED;
  });
}
