// Slot and token management ("Slot and token management functions" of the specification):
// one slot per configured token directory, always holding its token.
#include <cstdio>
#include <cstring>

#include "pkcs11/c_boundary.h"
#include "pkcs11/function_lists.h"
#include "pkcs11/token_objects.h"

using namespace klms::pkcs11;

namespace {

constexpr CK_MECHANISM_TYPE kMechanisms[] = {CKM_HSS_KEY_PAIR_GEN, CKM_HSS};

bool pin_length_ok(CK_ULONG n) { return n >= kMinPinBytes && n <= kMaxPinBytes; }

}  // namespace

KLMS_PKCS11_EXPORT CK_RV C_GetSlotList(CK_BBOOL, CK_SLOT_ID_PTR pSlotList, CK_ULONG_PTR pulCount) {
  return with_module("C_GetSlotList", [&](Module& m, ModuleLock&) -> CK_RV {
    if (pulCount == nullptr) return CKR_ARGUMENTS_BAD;
    const CK_ULONG n = m.slots.size();  // every slot has its token: the flag changes nothing
    if (pSlotList == nullptr) {
      *pulCount = n;
      return CKR_OK;
    }
    if (*pulCount < n) {
      *pulCount = n;
      return CKR_BUFFER_TOO_SMALL;
    }
    for (CK_ULONG i = 0; i < n; ++i) pSlotList[i] = i;
    *pulCount = n;
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GetSlotInfo(CK_SLOT_ID slotID, CK_SLOT_INFO_PTR pInfo) {
  return with_module("C_GetSlotInfo", [&](Module& m, ModuleLock&) -> CK_RV {
    Slot* slot = m.slot(slotID);
    if (slot == nullptr) return CKR_SLOT_ID_INVALID;
    if (pInfo == nullptr) return CKR_ARGUMENTS_BAD;
    std::memset(pInfo, 0, sizeof *pInfo);
    const std::string description = "klms token " + slot->store.dir();
    pad_copy(pInfo->slotDescription, sizeof pInfo->slotDescription, description.c_str());
    pad_copy(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "klms");
    pInfo->flags = CKF_TOKEN_PRESENT;
    pInfo->hardwareVersion = kLibraryVersion;
    pInfo->firmwareVersion = kLibraryVersion;
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GetTokenInfo(CK_SLOT_ID slotID, CK_TOKEN_INFO_PTR pInfo) {
  return with_module("C_GetTokenInfo", [&](Module& m, ModuleLock&) -> CK_RV {
    Slot* slot = m.slot(slotID);
    if (slot == nullptr) return CKR_SLOT_ID_INVALID;
    if (pInfo == nullptr) return CKR_ARGUMENTS_BAD;
    CK_RV rv = CKR_OK;
    auto meta = slot->store.load(rv);
    if (rv != CKR_OK) return rv;
    std::memset(pInfo, 0, sizeof *pInfo);
    std::memset(pInfo->label, ' ', sizeof pInfo->label);
    std::memset(pInfo->serialNumber, ' ', sizeof pInfo->serialNumber);
    std::memset(pInfo->utcTime, ' ', sizeof pInfo->utcTime);
    pad_copy(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "klms");
    pad_copy(pInfo->model, sizeof pInfo->model, "HSS/LMS token");
    pInfo->flags = CKF_RNG | CKF_LOGIN_REQUIRED;
    if (meta) {
      std::memcpy(pInfo->label, meta->label.data(), sizeof pInfo->label);
      static const char kHex[] = "0123456789abcdef";
      for (std::size_t i = 0; i < 8; ++i) {
        pInfo->serialNumber[2 * i] = static_cast<CK_CHAR>(kHex[meta->serial[i] >> 4]);
        pInfo->serialNumber[2 * i + 1] = static_cast<CK_CHAR>(kHex[meta->serial[i] & 15]);
      }
      pInfo->flags = slot->store.flags(*meta);
    }
    CK_ULONG sessions = 0, rw = 0;
    for (const auto& [h, s] : m.sessions) {
      if (s.slot != slotID) continue;
      ++sessions;
      if (s.rw) ++rw;
    }
    pInfo->ulMaxSessionCount = CK_EFFECTIVELY_INFINITE;
    pInfo->ulSessionCount = sessions;
    pInfo->ulMaxRwSessionCount = CK_EFFECTIVELY_INFINITE;
    pInfo->ulRwSessionCount = rw;
    pInfo->ulMaxPinLen = kMaxPinBytes;
    pInfo->ulMinPinLen = kMinPinBytes;
    pInfo->ulTotalPublicMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulFreePublicMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulTotalPrivateMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->ulFreePrivateMemory = CK_UNAVAILABLE_INFORMATION;
    pInfo->hardwareVersion = kLibraryVersion;
    pInfo->firmwareVersion = kLibraryVersion;
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GetMechanismList(CK_SLOT_ID slotID, CK_MECHANISM_TYPE_PTR pMechanismList,
                                            CK_ULONG_PTR pulCount) {
  return with_module("C_GetMechanismList", [&](Module& m, ModuleLock&) -> CK_RV {
    if (m.slot(slotID) == nullptr) return CKR_SLOT_ID_INVALID;
    if (pulCount == nullptr) return CKR_ARGUMENTS_BAD;
    const CK_ULONG n = sizeof kMechanisms / sizeof kMechanisms[0];
    if (pMechanismList == nullptr) {
      *pulCount = n;
      return CKR_OK;
    }
    if (*pulCount < n) {
      *pulCount = n;
      return CKR_BUFFER_TOO_SMALL;
    }
    std::memcpy(pMechanismList, kMechanisms, sizeof kMechanisms);
    *pulCount = n;
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GetMechanismInfo(CK_SLOT_ID slotID, CK_MECHANISM_TYPE type, CK_MECHANISM_INFO_PTR pInfo) {
  return with_module("C_GetMechanismInfo", [&](Module& m, ModuleLock&) -> CK_RV {
    if (m.slot(slotID) == nullptr) return CKR_SLOT_ID_INVALID;
    if (pInfo == nullptr) return CKR_ARGUMENTS_BAD;
    // The key sizes are not used for either mechanism and are 0 (the HSS section of the specification).
    pInfo->ulMinKeySize = 0;
    pInfo->ulMaxKeySize = 0;
    if (type == CKM_HSS_KEY_PAIR_GEN) {
      pInfo->flags = CKF_GENERATE_KEY_PAIR;
    } else if (type == CKM_HSS) {
      pInfo->flags = CKF_SIGN | CKF_VERIFY;
    } else {
      return CKR_MECHANISM_INVALID;
    }
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_InitToken(CK_SLOT_ID slotID, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen, CK_UTF8CHAR_PTR pLabel) {
  return with_module("C_InitToken", [&](Module& m, ModuleLock&) -> CK_RV {
    Slot* slot = m.slot(slotID);
    if (slot == nullptr) return CKR_SLOT_ID_INVALID;
    if (pLabel == nullptr || (pPin == nullptr && ulPinLen > 0)) return CKR_ARGUMENTS_BAD;
    if (pPin == nullptr) return CKR_FUNCTION_NOT_SUPPORTED;  // no protected authentication path
    if (!pin_length_ok(ulPinLen)) return CKR_PIN_LEN_RANGE;
    for (const auto& [h, s] : m.sessions) {
      if (s.slot == slotID) return CKR_SESSION_EXISTS;
    }
    const klms::ByteView pin(pPin, ulPinLen);
    CK_RV rv = CKR_OK;
    auto meta = slot->store.load(rv);
    if (rv != CKR_OK) return rv;
    if (meta) {
      // Re-initialization: the SO's PIN, then every object goes (their state files retired first).
      TokenKey old;
      if (const CK_RV checked = slot->store.check_pin(Role::kSo, pin, old); checked != CKR_OK) return checked;
      if (const CK_RV destroyed = destroy_all_token_objects(m, *slot); destroyed != CKR_OK) return destroyed;
    }
    slot->logout();
    const CK_RV done = slot->store.initialize(pin, pLabel);
    if (done == CKR_OK) log_line(LogLevel::kInfo, "token %s: initialized", slot->store.dir().c_str());
    return done;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_WaitForSlotEvent(CK_FLAGS, CK_SLOT_ID_PTR, CK_VOID_PTR) {
  return with_module("C_WaitForSlotEvent", [&](Module&, ModuleLock&) -> CK_RV {
    return CKR_FUNCTION_NOT_SUPPORTED;  // tokens are directories: they never come or go
  });
}
