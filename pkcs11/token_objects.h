// Token objects' files: writing one, and the destruction of one key (C_DestroyObject) and of all
// of them (C_InitToken on an initialized token). A private key's state file is retired first, by
// one durable write that moves its index to the end, so that no process that still holds the key
// can sign with it, and only then is its object file removed (docs/pkcs11.md "Destroying keys").
#pragma once

#include <string>

#include "pkcs11/cryptoki.h"
#include "pkcs11/module.h"

namespace klms::pkcs11 {

// A fresh uid for a token object (128 random bits in hex); false when the generator fails.
bool new_uid(std::string& out);
// Writes a token object's file (a new one, or one whose label, id or subject changed).
CK_RV store_token_object(const std::string& token_dir, const Object& object);

CK_RV destroy_token_object(Slot& slot, const Object& object);
// Every object file of the slot's token; CKR_OK unless a file could not be removed.
CK_RV destroy_all_token_objects(Module& m, Slot& slot);

}  // namespace klms::pkcs11
