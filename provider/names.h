// Algorithm names and the OID of HSS/LMS (docs/design.md "Parameters"). Never "LMS": OpenSSL 3.6+
// has a verify-only LMS key manager of its own, and names are shared by all providers.
#pragma once

namespace klms::provider {

inline constexpr const char* kHssOid = "1.2.840.113549.1.9.16.3.17";
inline constexpr const char* kHssShortName = "id-alg-hss-lms-hashsig";
inline constexpr const char* kHssLongName = "HSS-LMS";
inline constexpr const char* kHssAlgorithmNames = "HSS-LMS:HSS:id-alg-hss-lms-hashsig:1.2.840.113549.1.9.16.3.17";
// The key manager's names start with the OID's short name, which becomes the keys' type name
// (EVP_PKEY_get0_type_name): CMS (crypto/cms/cms_sd.c) looks the type name up with OBJ_txt2nid, and OpenSSL
// 4.0 has the OID built in as id-alg-hss-lms-hashsig with no long name, so "HSS-LMS" would not be
// found there (on 3.x the provider registers both names for the OID).
inline constexpr const char* kHssKeymgmtNames = "id-alg-hss-lms-hashsig:HSS-LMS:HSS:1.2.840.113549.1.9.16.3.17";
inline constexpr const char* kProperties = "provider=klms";

// DER of the OID and of AlgorithmIdentifier { id-alg-hss-lms-hashsig } (parameters absent).
inline constexpr unsigned char kHssOidDer[] = {0x06, 0x0B, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D,
                                               0x01, 0x09, 0x10, 0x03, 0x11};
inline constexpr unsigned char kHssAlgorithmIdDer[] = {0x30, 0x0D, 0x06, 0x0B, 0x2A, 0x86, 0x48, 0x86,
                                                       0xF7, 0x0D, 0x01, 0x09, 0x10, 0x03, 0x11};

// Parameter names of our own (key generation, signature context, key queries).
inline constexpr const char* kParamLms = "lms";
inline constexpr const char* kParamOts = "ots";
inline constexpr const char* kParamHash = "hash";
inline constexpr const char* kParamHeight = "height";
inline constexpr const char* kParamWinternitz = "winternitz";
inline constexpr const char* kParamStateFile = "state-file";
inline constexpr const char* kParamWitness = "witness";
inline constexpr const char* kParamSeed = "seed";
inline constexpr const char* kParamIdentifier = "identifier";
inline constexpr const char* kParamReserve = "reserve";
inline constexpr const char* kParamRemaining = "remaining-signatures";
inline constexpr const char* kParamMaxSignatures = "max-signatures";
inline constexpr const char* kParamLevels = "levels";
inline constexpr const char* kParamSeeded = "seeded";

}  // namespace klms::provider
