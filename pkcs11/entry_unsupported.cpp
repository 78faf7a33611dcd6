// The functions of the specification this token has no mechanism for (encryption, decryption,
// digests, the dual-function and the message-based functions): CKR_FUNCTION_NOT_SUPPORTED, after
// the checks every session function makes first.
#include "pkcs11/c_boundary.h"
#include "pkcs11/function_lists.h"

using namespace klms::pkcs11;

#pragma GCC diagnostic ignored "-Wunused-parameter"

#define KLMS_UNSUPPORTED(name, params)                                                                 \
  KLMS_PKCS11_EXPORT CK_RV name params {                                                               \
    return with_session(#name, hSession,                                                               \
                        [](Module&, Session&, ModuleLock&) -> CK_RV { return CKR_FUNCTION_NOT_SUPPORTED; }); \
  }

KLMS_UNSUPPORTED(C_EncryptInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey))
KLMS_UNSUPPORTED(C_Encrypt, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
                             CK_BYTE_PTR pEncryptedData, CK_ULONG_PTR pulEncryptedDataLen))
KLMS_UNSUPPORTED(C_EncryptUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen,
                                   CK_BYTE_PTR pEncryptedPart, CK_ULONG_PTR pulEncryptedPartLen))
KLMS_UNSUPPORTED(C_EncryptFinal, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pLastEncryptedPart,
                                  CK_ULONG_PTR pulLastEncryptedPartLen))
KLMS_UNSUPPORTED(C_DecryptInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey))
KLMS_UNSUPPORTED(C_Decrypt, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedData, CK_ULONG ulEncryptedDataLen,
                             CK_BYTE_PTR pData, CK_ULONG_PTR pulDataLen))
KLMS_UNSUPPORTED(C_DecryptUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedPart,
                                   CK_ULONG ulEncryptedPartLen, CK_BYTE_PTR pPart, CK_ULONG_PTR pulPartLen))
KLMS_UNSUPPORTED(C_DecryptFinal, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pLastPart, CK_ULONG_PTR pulLastPartLen))
KLMS_UNSUPPORTED(C_DigestInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism))
KLMS_UNSUPPORTED(C_Digest, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen, CK_BYTE_PTR pDigest,
                            CK_ULONG_PTR pulDigestLen))
KLMS_UNSUPPORTED(C_DigestUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen))
KLMS_UNSUPPORTED(C_DigestKey, (CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hKey))
KLMS_UNSUPPORTED(C_DigestFinal, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pDigest, CK_ULONG_PTR pulDigestLen))
KLMS_UNSUPPORTED(C_DigestEncryptUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen,
                                         CK_BYTE_PTR pEncryptedPart, CK_ULONG_PTR pulEncryptedPartLen))
KLMS_UNSUPPORTED(C_DecryptDigestUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedPart,
                                         CK_ULONG ulEncryptedPartLen, CK_BYTE_PTR pPart, CK_ULONG_PTR pulPartLen))
KLMS_UNSUPPORTED(C_SignEncryptUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen,
                                       CK_BYTE_PTR pEncryptedPart, CK_ULONG_PTR pulEncryptedPartLen))
KLMS_UNSUPPORTED(C_DecryptVerifyUpdate, (CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedPart,
                                         CK_ULONG ulEncryptedPartLen, CK_BYTE_PTR pPart, CK_ULONG_PTR pulPartLen))
// The 3.0 message-based functions: CKM_HSS is not a message mechanism (the HSS section of the
// specification marks it for single-part C_Sign and C_Verify only).
KLMS_CK_FUNCTIONS_3_0_MESSAGES(KLMS_UNSUPPORTED)
