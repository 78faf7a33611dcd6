// The SubjectPublicKeyInfo of an HSS public key (CKA_PUBLIC_KEY_INFO), as RFC 9708 and RFC 9802
// define it and `openssl pkey -pubin` with the klms provider reads it (docs/design.md "Encodings"):
//   SEQUENCE { SEQUENCE { OID id-alg-hss-lms-hashsig 1.2.840.113549.1.9.16.3.17 },
//              BIT STRING (no unused bits) the raw HSS public key }
#pragma once

#include "base/bytes.h"

namespace klms::pkcs11 {

Bytes hss_spki(ByteView raw_public_key);

}  // namespace klms::pkcs11
