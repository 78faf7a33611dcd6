// The token's objects: HSS public and private keys (the HSS section of the PKCS #11 3.1
// specification, "HSS public key objects", "HSS private key objects"). A token object is one file
// <dir>/objects/<uid>.obj (pkcs11/record_file.h); a private key's index lives in its own state file
// <dir>/state/<uid>.state, and its engine octets only sealed under the token key, bound to its uid
// and public key (docs/pkcs11.md "Storage").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "pkcs11/cryptoki.h"
#include "pkcs11/engine/engine_bridge.h"

namespace klms::pkcs11 {

// A vendor attribute (docs/pkcs11.md "Attributes"): a private key's state file, for klms-state.
inline constexpr CK_ATTRIBUTE_TYPE kAttrStateFile = CKA_VENDOR_DEFINED | 0x4b4c0001UL;

struct Object {
  CK_OBJECT_CLASS klass = CKO_PUBLIC_KEY;  // CKO_PUBLIC_KEY or CKO_PRIVATE_KEY
  bool token = true;
  bool is_private = false;  // CKA_PRIVATE
  bool modifiable = true;
  bool usable = true;       // CKA_VERIFY (public) or CKA_SIGN (private)
  bool local = true;        // made by C_GenerateKeyPair
  Bytes label, id, subject;
  std::vector<engine::LevelTypes> levels;  // private: every level; public: the top level only
  std::uint32_t level_count = 0;
  Bytes public_key;  // raw HSS public key
  Bytes sealed;      // private: the engine's octets sealed under the token key
  std::string uid;   // token objects: 32 hex digits, the file name
  std::string state_file;  // private keys, not stored: <dir>/state/<uid>.state of the token it was read from

  bool is_public_key() const noexcept { return klass == CKO_PUBLIC_KEY; }
};

std::string object_path(const std::string& token_dir, const std::string& uid);
std::string state_path(const std::string& token_dir, const std::string& uid);

// The file's text, and back; nullopt for a file that is not a well-formed object.
std::string serialize_object(const Object& o);
std::optional<Object> parse_object(const std::string& text, const std::string& uid);

// What sealing a private key binds it to: its uid and public key.
std::string sealing_context(const std::string& uid, const Bytes& public_key);

// One attribute of an object as the specification encodes it (CK_ULONG and CK_BBOOL in this
// platform's layout). kSensitive: it exists and may not be revealed; kAbsent: not an attribute of
// this object; kFailed: the live value (CKA_HSS_KEYS_REMAINING) could not be read.
enum class AttrStatus : std::uint8_t { kOk, kSensitive, kAbsent, kFailed };
// The remaining signatures of a private key, read when asked for; false when it cannot be read.
using RemainingReader = std::function<bool(std::uint64_t&)>;
AttrStatus attribute_value(const Object& o, CK_ATTRIBUTE_TYPE type, const RemainingReader& remaining, Bytes& out);

// C_GetAttributeValue's rules ("C_GetAttributeValue" in the specification, cases 1 to 5) over a
// whole template: every entry answered, the CKR of the worst case returned.
CK_RV get_attribute_values(const Object& o, CK_ATTRIBUTE* attributes, CK_ULONG count,
                           const RemainingReader& remaining);
// Whether every attribute of the template has exactly this value on the object.
bool matches(const Object& o, const CK_ATTRIBUTE* attributes, CK_ULONG count, const RemainingReader& remaining);

}  // namespace klms::pkcs11
