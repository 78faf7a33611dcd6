#include "pkcs11/function_lists.h"

namespace klms::pkcs11 {
namespace {

#define KLMS_CK_ENTRY(name, params) name,

CK_FUNCTION_LIST g_list_2_40 = {{2, 40}, KLMS_CK_FUNCTIONS_2_40(KLMS_CK_ENTRY)};
CK_FUNCTION_LIST_3_0 g_list_3_1 = {kCryptokiVersion, KLMS_CK_FUNCTIONS_2_40(KLMS_CK_ENTRY)
                                                         KLMS_CK_FUNCTIONS_3_0(KLMS_CK_ENTRY)};
CK_FUNCTION_LIST_3_0 g_list_3_0 = {{3, 0}, KLMS_CK_FUNCTIONS_2_40(KLMS_CK_ENTRY) KLMS_CK_FUNCTIONS_3_0(KLMS_CK_ENTRY)};

#undef KLMS_CK_ENTRY

CK_CHAR g_name[] = "PKCS 11";
// Not CKF_INTERFACE_FORK_SAFE: a child's sessions end at fork() (docs/pkcs11.md "Processes and threads").
CK_INTERFACE g_interfaces[] = {{g_name, &g_list_3_1, 0}, {g_name, &g_list_3_0, 0}, {g_name, &g_list_2_40, 0}};

}  // namespace

CK_FUNCTION_LIST* function_list_2_40() noexcept { return &g_list_2_40; }
std::span<CK_INTERFACE> interfaces() noexcept { return g_interfaces; }

}  // namespace klms::pkcs11
