// A private key object opened for signing: its engine octets unsealed with the token key the
// user's login holds, loaded once per process and login (pkcs11/module.h Slot::signing_keys), so
// that its signer keeps its trees between signatures.
#pragma once

#include <memory>

#include "pkcs11/cryptoki.h"
#include "pkcs11/module.h"

namespace klms::pkcs11 {

CK_RV open_signing_key(Slot& slot, const Object& object, std::shared_ptr<engine::SigningKey>& out);

// What a private key's CKA_HSS_KEYS_REMAINING reads: the state file now (pkcs11/object.h).
RemainingReader remaining_reader(Slot& slot, const Object& object);

}  // namespace klms::pkcs11
