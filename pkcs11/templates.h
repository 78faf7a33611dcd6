// Attribute templates a caller gives (C_GenerateKeyPair, C_CreateObject, C_SetAttributeValue),
// read strictly: each attribute once, each value of its type's exact length, what the HSS key
// objects cannot be refused with the specification's CKR ("Creating objects" and the HSS section
// of the PKCS #11 3.1 specification). The HSS levels come from the private key's template
// (CKA_HSS_LEVELS with CKA_HSS_LMS_TYPES and CKA_HSS_LMOTS_TYPES, or one CKA_HSS_LMS_TYPE and
// CKA_HSS_LMOTS_TYPE for every level); the public key's single-type forms, which the mechanism
// contributes, are accepted when they agree, and stand in when the private template names none.
#pragma once

#include <string>
#include <vector>

#include "pkcs11/cryptoki.h"
#include "pkcs11/object.h"

namespace klms::pkcs11 {

struct KeyPairTemplate {
  Object public_key;   // its attributes from the template (no key yet)
  Object private_key;
  bool public_id_given = false;
  bool private_id_given = false;
  std::vector<engine::LevelTypes> levels;
};

// CKR_OK, or the CKR with `why` saying which attribute and what is wrong.
CK_RV parse_key_pair_templates(const CK_ATTRIBUTE* public_template, CK_ULONG public_count,
                               const CK_ATTRIBUTE* private_template, CK_ULONG private_count, KeyPairTemplate& out,
                               std::string& why);
// C_CreateObject: an HSS public key from its CKA_VALUE (a verification key from elsewhere).
CK_RV parse_public_key_template(const CK_ATTRIBUTE* attributes, CK_ULONG count, Object& out, std::string& why);
// C_SetAttributeValue: CKA_LABEL, CKA_ID and CKA_SUBJECT of a modifiable object, applied to `object`.
CK_RV apply_set_template(const CK_ATTRIBUTE* attributes, CK_ULONG count, Object& object, std::string& why);

}  // namespace klms::pkcs11
