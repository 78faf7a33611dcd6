// The function lists the module hands out: CK_FUNCTION_LIST (2.40, C_GetFunctionList) and
// CK_FUNCTION_LIST_3_0 under the interface "PKCS 11" versions 3.1 (the default: the version whose
// HSS mechanisms the module implements), 3.0 and 2.40 (C_GetInterfaceList, C_GetInterface).
#pragma once

#include <span>

#include "pkcs11/cryptoki.h"

namespace klms::pkcs11 {

inline constexpr CK_VERSION kCryptokiVersion{3, 1};
inline constexpr CK_VERSION kLibraryVersion{0, 1};

CK_FUNCTION_LIST* function_list_2_40() noexcept;
std::span<CK_INTERFACE> interfaces() noexcept;

}  // namespace klms::pkcs11

// Every function of the specification, exported under its own name too.
#define KLMS_CK_DECLARE(name, params) extern "C" __attribute__((visibility("default"))) CK_RV name params;
KLMS_CK_FUNCTIONS_2_40(KLMS_CK_DECLARE)
KLMS_CK_FUNCTIONS_3_0(KLMS_CK_DECLARE)
#undef KLMS_CK_DECLARE
