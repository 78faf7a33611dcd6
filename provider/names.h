// Algorithm names and the OID of HSS/LMS (docs/design.md "Parameters"). Never "LMS": OpenSSL 3.6+
// has a verify-only LMS key manager of its own, and names are shared by all providers.
// Every name comes from the installed interface header <klms/klms.h>, so the provider and the
// programs built against it cannot disagree (docs/developer-kit.md "Stability").
#pragma once

#include "klms/klms.h"

namespace klms::provider {

inline constexpr const char* kHssOid = KLMS_ALG_HSS_LMS_OID;
inline constexpr const char* kHssShortName = KLMS_ALG_HSS_LMS_SN;
inline constexpr const char* kHssLongName = KLMS_ALG_HSS_LMS;
inline constexpr const char* kHssAlgorithmNames =
    KLMS_ALG_HSS_LMS ":" KLMS_ALG_HSS ":" KLMS_ALG_HSS_LMS_SN ":" KLMS_ALG_HSS_LMS_OID;
// The key manager's names start with the OID's short name, which becomes the keys' type name
// (EVP_PKEY_get0_type_name): CMS (crypto/cms/cms_sd.c) looks the type name up with OBJ_txt2nid, and OpenSSL
// 4.0 has the OID built in as id-alg-hss-lms-hashsig with no long name, so "HSS-LMS" would not be
// found there (on 3.x the provider registers both names for the OID).
inline constexpr const char* kHssKeymgmtNames =
    KLMS_ALG_HSS_LMS_SN ":" KLMS_ALG_HSS_LMS ":" KLMS_ALG_HSS ":" KLMS_ALG_HSS_LMS_OID;
inline constexpr const char* kProperties = KLMS_PROPERTY;
// XMSS and XMSS^MT (RFC 9802): the key managers' names, the OID's short name first (the keys' type
// name), as HSS-LMS's; decoders hand keys to them.
inline constexpr const char* kXmssDecoderNames = KLMS_ALG_XMSS_SN ":" KLMS_ALG_XMSS ":" KLMS_ALG_XMSS_OID;
inline constexpr const char* kXmssMtDecoderNames = KLMS_ALG_XMSSMT_SN ":" KLMS_ALG_XMSSMT ":" KLMS_ALG_XMSSMT_OID;

// DER of the OID and of AlgorithmIdentifier { id-alg-hss-lms-hashsig } (parameters absent).
inline constexpr unsigned char kHssOidDer[] = {0x06, 0x0B, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D,
                                               0x01, 0x09, 0x10, 0x03, 0x11};
inline constexpr unsigned char kHssAlgorithmIdDer[] = {0x30, 0x0D, 0x06, 0x0B, 0x2A, 0x86, 0x48, 0x86,
                                                       0xF7, 0x0D, 0x01, 0x09, 0x10, 0x03, 0x11};

// Parameter names of our own (key generation, signature context, key queries).
inline constexpr const char* kParamLms = KLMS_PKEY_PARAM_LMS;
inline constexpr const char* kParamOts = KLMS_PKEY_PARAM_OTS;
inline constexpr const char* kParamHash = KLMS_PKEY_PARAM_HASH;
inline constexpr const char* kParamHeight = KLMS_PKEY_PARAM_HEIGHT;
inline constexpr const char* kParamWinternitz = KLMS_PKEY_PARAM_WINTERNITZ;
inline constexpr const char* kParamParams = KLMS_PKEY_PARAM_PARAMS;
inline constexpr const char* kParamStateFile = KLMS_PKEY_PARAM_STATE_FILE;
inline constexpr const char* kParamWitness = KLMS_PKEY_PARAM_WITNESS;
inline constexpr const char* kParamSeed = KLMS_PKEY_PARAM_SEED;
inline constexpr const char* kParamIdentifier = KLMS_PKEY_PARAM_IDENTIFIER;
inline constexpr const char* kParamProgress = KLMS_PKEY_PARAM_PROGRESS;
inline constexpr const char* kParamReserve = KLMS_SIGNATURE_PARAM_RESERVE;
inline constexpr const char* kParamRemaining = KLMS_PKEY_PARAM_REMAINING_SIGNATURES;
inline constexpr const char* kParamMaxSignatures = KLMS_PKEY_PARAM_MAX_SIGNATURES;
inline constexpr const char* kParamLevels = KLMS_PKEY_PARAM_LEVELS;
inline constexpr const char* kParamSeeded = KLMS_PKEY_PARAM_SEEDED;

// One C++ name serves the key and the signature context where the header names both: equal strings.
constexpr bool same_name(const char* a, const char* b) {
  for (; *a != '\0' && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}
static_assert(same_name(KLMS_PKEY_PARAM_STATE_FILE, KLMS_SIGNATURE_PARAM_STATE_FILE));
static_assert(same_name(KLMS_PKEY_PARAM_REMAINING_SIGNATURES, KLMS_SIGNATURE_PARAM_REMAINING_SIGNATURES));

// Configuration keys and environment variables.
inline constexpr const char* kConfStateDir = KLMS_CONF_STATE_DIR;
inline constexpr const char* kConfReserve = KLMS_CONF_RESERVE;
inline constexpr const char* kConfAllowNetworkFs = KLMS_CONF_ALLOW_NETWORK_FS;
inline constexpr const char* kConfAllowNoFileHandles = KLMS_CONF_ALLOW_NO_FILE_HANDLES;
inline constexpr const char* kConfWitness = KLMS_CONF_WITNESS;
inline constexpr const char* kConfTpmTcti = KLMS_CONF_TPM_TCTI;
inline constexpr const char* kConfTpmTimeoutMs = KLMS_CONF_TPM_TIMEOUT_MS;
inline constexpr const char* kConfTpmOwnerAuthFile = KLMS_CONF_TPM_OWNER_AUTH_FILE;
inline constexpr const char* kConfTpmNvWriteBudget = KLMS_CONF_TPM_NV_WRITE_BUDGET;
inline constexpr const char* kConfLowSignaturesWarning = KLMS_CONF_LOW_SIGNATURES_WARNING;
inline constexpr const char* kEnvStateDir = KLMS_ENV_STATE_DIR;
inline constexpr const char* kEnvProgress = KLMS_ENV_PROGRESS;

}  // namespace klms::provider
