// C_Initialize, C_Finalize, C_GetInfo and the function lists and interfaces ("General-purpose
// functions" and "Interface functions" of the specification).
#include <cstring>

#include "pkcs11/c_boundary.h"
#include "pkcs11/config.h"
#include "pkcs11/function_lists.h"

using namespace klms::pkcs11;

namespace klms::pkcs11 {

void pad_copy(CK_UTF8CHAR* field, std::size_t width, const char* text) noexcept {
  std::memset(field, ' ', width);
  const std::size_t n = std::strlen(text);
  std::memcpy(field, text, n < width ? n : width);
}

}  // namespace klms::pkcs11

KLMS_PKCS11_EXPORT CK_RV C_Initialize(CK_VOID_PTR pInitArgs) {
  return guarded("C_Initialize", [&]() -> CK_RV {
    if (pInitArgs != nullptr) {
      const auto* args = static_cast<const CK_C_INITIALIZE_ARGS*>(pInitArgs);
      if (args->pReserved != nullptr) return CKR_ARGUMENTS_BAD;
      const bool all = args->CreateMutex && args->DestroyMutex && args->LockMutex && args->UnlockMutex;
      const bool none = !args->CreateMutex && !args->DestroyMutex && !args->LockMutex && !args->UnlockMutex;
      if (!all && !none) return CKR_ARGUMENTS_BAD;
      // The application's own mutexes only: we need the operating system's (std::mutex), and may
      // use them only when it says so; the signing engine makes threads (key generation).
      if (all && (args->flags & CKF_OS_LOCKING_OK) == 0) return CKR_CANT_LOCK;
      if ((args->flags & CKF_LIBRARY_CANT_CREATE_OS_THREADS) != 0) return CKR_NEED_TO_CREATE_THREADS;
    }
    Module& m = module();
    ModuleLock lock(m.mutex);
    if (m.initialized) return CKR_CRYPTOKI_ALREADY_INITIALIZED;
    ModuleConfig config;
    std::string why;
    const bool read = read_module_config(config, why);
    if (!set_log_destination(config.log)) {
      set_log_destination("");
      log_line(LogLevel::kError, "log destination '%s' is none of syslog, stderr, none or an absolute path",
               config.log.c_str());
    }
    if (!read) {
      log_line(LogLevel::kError, "configuration: %s", why.c_str());
      return CKR_GENERAL_ERROR;
    }
    for (auto& t : config.tokens) m.slots.push_back(std::make_unique<Slot>(std::move(t)));
    m.initialized = true;
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_Finalize(CK_VOID_PTR pReserved) {
  return with_module("C_Finalize", [&](Module& m, ModuleLock&) -> CK_RV {
    if (pReserved != nullptr) return CKR_ARGUMENTS_BAD;
    m.reset();
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GetInfo(CK_INFO_PTR pInfo) {
  return with_module("C_GetInfo", [&](Module&, ModuleLock&) -> CK_RV {
    if (pInfo == nullptr) return CKR_ARGUMENTS_BAD;
    std::memset(pInfo, 0, sizeof *pInfo);
    pInfo->cryptokiVersion = kCryptokiVersion;
    pad_copy(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "klms");
    pad_copy(pInfo->libraryDescription, sizeof pInfo->libraryDescription, "klms HSS/LMS token");
    pInfo->libraryVersion = kLibraryVersion;
    return CKR_OK;
  });
}

KLMS_PKCS11_EXPORT CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR ppFunctionList) {
  if (ppFunctionList == nullptr) return CKR_ARGUMENTS_BAD;
  *ppFunctionList = function_list_2_40();
  return CKR_OK;
}

KLMS_PKCS11_EXPORT CK_RV C_GetInterfaceList(CK_INTERFACE_PTR pInterfacesList, CK_ULONG_PTR pulCount) {
  if (pulCount == nullptr) return CKR_ARGUMENTS_BAD;
  const std::span<CK_INTERFACE> all = interfaces();
  if (pInterfacesList == nullptr) {
    *pulCount = all.size();
    return CKR_OK;
  }
  if (*pulCount < all.size()) {
    *pulCount = all.size();
    return CKR_BUFFER_TOO_SMALL;
  }
  std::memcpy(pInterfacesList, all.data(), all.size() * sizeof(CK_INTERFACE));
  *pulCount = all.size();
  return CKR_OK;
}

KLMS_PKCS11_EXPORT CK_RV C_GetInterface(CK_UTF8CHAR_PTR pInterfaceName, CK_VERSION_PTR pVersion,
                                        CK_INTERFACE_PTR_PTR ppInterface, CK_FLAGS flags) {
  if (ppInterface == nullptr) return CKR_ARGUMENTS_BAD;
  for (CK_INTERFACE& i : interfaces()) {
    if (pInterfaceName != nullptr &&
        std::strcmp(reinterpret_cast<const char*>(pInterfaceName), reinterpret_cast<const char*>(i.pInterfaceName)) != 0) {
      continue;
    }
    const CK_VERSION v = *static_cast<const CK_VERSION*>(i.pFunctionList);  // every list starts with its version
    if (pVersion != nullptr && (pVersion->major != v.major || pVersion->minor != v.minor)) continue;
    if ((i.flags & flags) != flags) continue;
    *ppInterface = &i;
    return CKR_OK;
  }
  return CKR_ARGUMENTS_BAD;
}
