// A key's PKCS#11 URI (RFC 7512): pkcs11:token=<label>;id=<CKA_ID>;type=private|public, every
// byte outside RFC 7512's unreserved set percent-encoded, the label without its blank padding.
#pragma once

#include <string>

#include "base/bytes.h"

namespace klms::pkcs11 {

std::string pkcs11_uri(const Bytes& token_label, const Bytes& id, bool private_key);

}  // namespace klms::pkcs11
