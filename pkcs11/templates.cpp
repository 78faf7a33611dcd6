#include "pkcs11/templates.h"

#include <cstring>
#include <set>

namespace klms::pkcs11 {
namespace {

constexpr std::size_t kMaxBytesAttribute = 4096;  // labels, ids, subjects
constexpr CK_ATTRIBUTE_TYPE kTrusted = 0x00000086UL;  // CKA_TRUSTED

std::string hex_type(CK_ATTRIBUTE_TYPE t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%lx", static_cast<unsigned long>(t));
  return buf;
}

// Typed reads of one attribute; CKR_OK or CKR_ATTRIBUTE_VALUE_INVALID with `why`.
CK_RV read_bool(const CK_ATTRIBUTE& a, bool& out, std::string& why) {
  if (a.ulValueLen != sizeof(CK_BBOOL) || a.pValue == nullptr) {
    why = "attribute " + hex_type(a.type) + " is a CK_BBOOL (1 byte)";
    return CKR_ATTRIBUTE_VALUE_INVALID;
  }
  out = *static_cast<const CK_BBOOL*>(a.pValue) != CK_FALSE;
  return CKR_OK;
}

CK_RV read_ulong(const CK_ATTRIBUTE& a, CK_ULONG& out, std::string& why) {
  if (a.ulValueLen != sizeof(CK_ULONG) || a.pValue == nullptr) {
    why = "attribute " + hex_type(a.type) + " is a CK_ULONG (" + std::to_string(sizeof(CK_ULONG)) + " bytes)";
    return CKR_ATTRIBUTE_VALUE_INVALID;
  }
  std::memcpy(&out, a.pValue, sizeof out);
  return CKR_OK;
}

CK_RV read_ulongs(const CK_ATTRIBUTE& a, std::vector<CK_ULONG>& out, std::string& why) {
  if (a.ulValueLen == 0 || a.ulValueLen % sizeof(CK_ULONG) != 0 || a.ulValueLen > 8 * sizeof(CK_ULONG) ||
      a.pValue == nullptr) {
    why = "attribute " + hex_type(a.type) + " is 1 to 8 CK_ULONGs";
    return CKR_ATTRIBUTE_VALUE_INVALID;
  }
  out.resize(a.ulValueLen / sizeof(CK_ULONG));
  std::memcpy(out.data(), a.pValue, a.ulValueLen);
  return CKR_OK;
}

CK_RV read_bytes(const CK_ATTRIBUTE& a, Bytes& out, std::size_t max, std::string& why) {
  if (a.ulValueLen > max || (a.ulValueLen > 0 && a.pValue == nullptr)) {
    why = "attribute " + hex_type(a.type) + " holds at most " + std::to_string(max) + " bytes";
    return CKR_ATTRIBUTE_VALUE_INVALID;
  }
  const auto* p = static_cast<const std::uint8_t*>(a.pValue);
  out.assign(p, p + a.ulValueLen);
  return CKR_OK;
}

// An attribute this key can only have at one value (CKA_SENSITIVE true, CKA_EXTRACTABLE false...).
CK_RV require_bool(const CK_ATTRIBUTE& a, bool required, const char* name, std::string& why) {
  bool v = false;
  if (const CK_RV rv = read_bool(a, v, why); rv != CKR_OK) return rv;
  if (v != required) {
    why = std::string(name) + " must be " + (required ? "CK_TRUE" : "CK_FALSE") + " for an HSS key";
    return CKR_ATTRIBUTE_VALUE_INVALID;
  }
  return CKR_OK;
}

CK_RV check_array_and_duplicates(const CK_ATTRIBUTE* attributes, CK_ULONG count, const char* which, std::string& why) {
  if (count > 0 && attributes == nullptr) {
    why = std::string(which) + " template is NULL with a count of " + std::to_string(count);
    return CKR_ARGUMENTS_BAD;
  }
  std::set<CK_ATTRIBUTE_TYPE> seen;
  for (CK_ULONG i = 0; i < count; ++i) {
    if (!seen.insert(attributes[i].type).second) {
      why = std::string(which) + " template names attribute " + hex_type(attributes[i].type) + " twice";
      return CKR_TEMPLATE_INCONSISTENT;
    }
  }
  return CKR_OK;
}

CK_RV read_allowed_mechanisms(const CK_ATTRIBUTE& a, std::string& why) {
  std::vector<CK_ULONG> v;
  if (const CK_RV rv = read_ulongs(a, v, why); rv != CKR_OK) return rv;
  for (CK_ULONG m : v) {
    if (m != CKM_HSS) {
      why = "CKA_ALLOWED_MECHANISMS: an HSS key is used with CKM_HSS only";
      return CKR_ATTRIBUTE_VALUE_INVALID;
    }
  }
  return CKR_OK;
}

// The single-type forms and the level count, as given; 0 when absent.
struct SingleForms {
  CK_ULONG levels = 0, lms = 0, ots = 0;
  bool has_levels = false, has_lms = false, has_ots = false;
};

// Attributes every key template shares; `handled` false when `a` is not one of them.
CK_RV read_common(const CK_ATTRIBUTE& a, CK_OBJECT_CLASS klass, Object& o, bool& id_given, SingleForms& single,
                  bool& handled, std::string& why) {
  handled = true;
  CK_ULONG n = 0;
  switch (a.type) {
    case CKA_CLASS:
      if (const CK_RV rv = read_ulong(a, n, why); rv != CKR_OK) return rv;
      if (n != klass) {
        why = "CKA_CLASS " + std::to_string(n) + " in the " + (klass == CKO_PUBLIC_KEY ? "public" : "private") +
              " key template";
        return CKR_TEMPLATE_INCONSISTENT;
      }
      return CKR_OK;
    case CKA_KEY_TYPE:
      if (const CK_RV rv = read_ulong(a, n, why); rv != CKR_OK) return rv;
      if (n != CKK_HSS) {
        why = "CKA_KEY_TYPE must be CKK_HSS with CKM_HSS_KEY_PAIR_GEN";
        return CKR_TEMPLATE_INCONSISTENT;
      }
      return CKR_OK;
    case CKA_TOKEN: return read_bool(a, o.token, why);
    case CKA_PRIVATE: return read_bool(a, o.is_private, why);
    case CKA_MODIFIABLE: return read_bool(a, o.modifiable, why);
    case CKA_LABEL: return read_bytes(a, o.label, kMaxBytesAttribute, why);
    case CKA_ID:
      id_given = true;
      return read_bytes(a, o.id, kMaxBytesAttribute, why);
    case CKA_SUBJECT: return read_bytes(a, o.subject, kMaxBytesAttribute, why);
    case CKA_DERIVE: return require_bool(a, false, "CKA_DERIVE", why);
    case CKA_COPYABLE: return require_bool(a, false, "CKA_COPYABLE", why);
    case CKA_DESTROYABLE: return require_bool(a, true, "CKA_DESTROYABLE", why);
    case CKA_START_DATE:
    case CKA_END_DATE:
      if (a.ulValueLen != 0) {
        why = "CKA_START_DATE and CKA_END_DATE are not kept: give them empty or not at all";
        return CKR_ATTRIBUTE_VALUE_INVALID;
      }
      return CKR_OK;
    case CKA_ALLOWED_MECHANISMS: return read_allowed_mechanisms(a, why);
    case CKA_HSS_LEVELS:
      single.has_levels = true;
      return read_ulong(a, single.levels, why);
    case CKA_HSS_LMS_TYPE:
      single.has_lms = true;
      return read_ulong(a, single.lms, why);
    case CKA_HSS_LMOTS_TYPE:
      single.has_ots = true;
      return read_ulong(a, single.ots, why);
    case CKA_VALUE:
    case CKA_PUBLIC_KEY_INFO:
    case CKA_LOCAL:
    case CKA_KEY_GEN_MECHANISM:
    case CKA_UNIQUE_ID:
      why = "attribute " + hex_type(a.type) + " is set by the token, not by a template";
      return CKR_ATTRIBUTE_READ_ONLY;
    default: handled = false; return CKR_OK;
  }
}

CK_RV read_public(const CK_ATTRIBUTE* attributes, CK_ULONG count, Object& o, bool& id_given, SingleForms& single,
                  Bytes* value, std::string& why) {
  for (CK_ULONG i = 0; i < count; ++i) {
    const CK_ATTRIBUTE& a = attributes[i];
    bool handled = false;
    if (value != nullptr && a.type == CKA_VALUE) {
      if (const CK_RV rv = read_bytes(a, *value, 1024, why); rv != CKR_OK) return rv;
      continue;
    }
    if (const CK_RV rv = read_common(a, CKO_PUBLIC_KEY, o, id_given, single, handled, why); rv != CKR_OK) return rv;
    if (handled) continue;
    CK_RV rv = CKR_OK;
    switch (a.type) {
      case CKA_VERIFY: rv = read_bool(a, o.usable, why); break;
      case CKA_ENCRYPT: rv = require_bool(a, false, "CKA_ENCRYPT", why); break;
      case CKA_WRAP: rv = require_bool(a, false, "CKA_WRAP", why); break;
      case CKA_VERIFY_RECOVER: rv = require_bool(a, false, "CKA_VERIFY_RECOVER", why); break;
      case kTrusted: rv = require_bool(a, false, "CKA_TRUSTED", why); break;
      default:
        why = "attribute " + hex_type(a.type) + " is not an attribute of an HSS public key";
        return CKR_ATTRIBUTE_TYPE_INVALID;
    }
    if (rv != CKR_OK) return rv;
  }
  return CKR_OK;
}

// Levels from the type codes given, each fitting the 32 bits RFC 8554 gives them.
CK_RV levels_from(const std::vector<CK_ULONG>& lms, const std::vector<CK_ULONG>& ots,
                  std::vector<engine::LevelTypes>& out, std::string& why) {
  out.clear();
  for (std::size_t i = 0; i < lms.size(); ++i) {
    if (lms[i] > 0xffffffffUL || ots[i] > 0xffffffffUL) {
      why = "an LMS or LM-OTS type code is a 32-bit number";
      return CKR_ATTRIBUTE_VALUE_INVALID;
    }
    out.push_back(engine::LevelTypes{static_cast<std::uint32_t>(lms[i]), static_cast<std::uint32_t>(ots[i])});
  }
  return CKR_OK;
}

}  // namespace

CK_RV parse_key_pair_templates(const CK_ATTRIBUTE* public_template, CK_ULONG public_count,
                               const CK_ATTRIBUTE* private_template, CK_ULONG private_count, KeyPairTemplate& out,
                               std::string& why) {
  out = KeyPairTemplate{};
  if (CK_RV rv = check_array_and_duplicates(public_template, public_count, "the public key", why); rv != CKR_OK) return rv;
  if (CK_RV rv = check_array_and_duplicates(private_template, private_count, "the private key", why); rv != CKR_OK) {
    return rv;
  }
  Object& pub = out.public_key;
  pub.klass = CKO_PUBLIC_KEY;
  pub.token = false;  // the specification's defaults
  pub.is_private = false;
  SingleForms pub_single;
  if (CK_RV rv = read_public(public_template, public_count, pub, out.public_id_given, pub_single, nullptr, why);
      rv != CKR_OK) {
    return rv;
  }

  Object& priv = out.private_key;
  priv.klass = CKO_PRIVATE_KEY;
  priv.token = false;
  priv.is_private = true;
  SingleForms single;
  std::vector<CK_ULONG> lms, ots;
  bool has_lms = false, has_ots = false;
  for (CK_ULONG i = 0; i < private_count; ++i) {
    const CK_ATTRIBUTE& a = private_template[i];
    bool handled = false;
    if (CK_RV rv = read_common(a, CKO_PRIVATE_KEY, priv, out.private_id_given, single, handled, why); rv != CKR_OK) {
      return rv;
    }
    if (handled) continue;
    CK_RV rv = CKR_OK;
    switch (a.type) {
      case CKA_SIGN: rv = read_bool(a, priv.usable, why); break;
      case CKA_SENSITIVE: rv = require_bool(a, true, "CKA_SENSITIVE", why); break;
      case CKA_EXTRACTABLE: rv = require_bool(a, false, "CKA_EXTRACTABLE", why); break;
      case CKA_DECRYPT: rv = require_bool(a, false, "CKA_DECRYPT", why); break;
      case CKA_UNWRAP: rv = require_bool(a, false, "CKA_UNWRAP", why); break;
      case CKA_SIGN_RECOVER: rv = require_bool(a, false, "CKA_SIGN_RECOVER", why); break;
      case CKA_WRAP_WITH_TRUSTED: rv = require_bool(a, false, "CKA_WRAP_WITH_TRUSTED", why); break;
      case CKA_ALWAYS_AUTHENTICATE: rv = require_bool(a, false, "CKA_ALWAYS_AUTHENTICATE", why); break;
      case CKA_HSS_LMS_TYPES:
        has_lms = true;
        rv = read_ulongs(a, lms, why);
        break;
      case CKA_HSS_LMOTS_TYPES:
        has_ots = true;
        rv = read_ulongs(a, ots, why);
        break;
      case CKA_HSS_KEYS_REMAINING:
      case CKA_ALWAYS_SENSITIVE:
      case CKA_NEVER_EXTRACTABLE:
        why = "attribute " + hex_type(a.type) + " is set by the token, not by a template";
        return CKR_ATTRIBUTE_READ_ONLY;
      default:
        why = "attribute " + hex_type(a.type) + " is not an attribute of an HSS private key";
        return CKR_ATTRIBUTE_TYPE_INVALID;
    }
    if (rv != CKR_OK) return rv;
  }

  // The levels: the private template's, in either form, else the public template's single forms.
  if (has_lms != has_ots) {
    why = "CKA_HSS_LMS_TYPES and CKA_HSS_LMOTS_TYPES come together";
    return CKR_TEMPLATE_INCOMPLETE;
  }
  if (single.has_lms != single.has_ots) {
    why = "CKA_HSS_LMS_TYPE and CKA_HSS_LMOTS_TYPE come together";
    return CKR_TEMPLATE_INCOMPLETE;
  }
  const SingleForms* levels_from_single = nullptr;
  if (has_lms) {
    if (lms.size() != ots.size()) {
      why = "CKA_HSS_LMS_TYPES and CKA_HSS_LMOTS_TYPES name " + std::to_string(lms.size()) + " and " +
            std::to_string(ots.size()) + " levels";
      return CKR_TEMPLATE_INCONSISTENT;
    }
    if (single.has_levels && single.levels != lms.size()) {
      why = "CKA_HSS_LEVELS is " + std::to_string(single.levels) + " but the type lists name " +
            std::to_string(lms.size()) + " levels";
      return CKR_TEMPLATE_INCONSISTENT;
    }
    if (single.has_lms) {
      for (std::size_t i = 0; i < lms.size(); ++i) {
        if (lms[i] != single.lms || ots[i] != single.ots) {
          why = "CKA_HSS_LMS_TYPE/CKA_HSS_LMOTS_TYPE differ from the per-level lists";
          return CKR_TEMPLATE_INCONSISTENT;
        }
      }
    }
  } else if (single.has_lms) {
    levels_from_single = &single;
  } else if (pub_single.has_lms) {
    levels_from_single = &pub_single;
  } else {
    why = "the private key template names no HSS levels: give CKA_HSS_LEVELS, CKA_HSS_LMS_TYPES and "
          "CKA_HSS_LMOTS_TYPES";
    return CKR_TEMPLATE_INCOMPLETE;
  }
  if (levels_from_single != nullptr) {
    const CK_ULONG count = levels_from_single->has_levels ? levels_from_single->levels
                           : single.has_levels            ? single.levels
                                                          : 1;
    if (count < 1 || count > 8) {
      why = "CKA_HSS_LEVELS is 1 to 8, not " + std::to_string(count);
      return CKR_ATTRIBUTE_VALUE_INVALID;
    }
    lms.assign(count, levels_from_single->lms);
    ots.assign(count, levels_from_single->ots);
  }
  if (CK_RV rv = levels_from(lms, ots, out.levels, why); rv != CKR_OK) return rv;

  // What the public template says of the key it will get must be what it gets.
  if ((pub_single.has_levels && pub_single.levels != out.levels.size()) ||
      (pub_single.has_lms && (pub_single.lms != out.levels.front().lms || pub_single.ots != out.levels.front().ots)) ||
      (single.has_levels && single.levels != out.levels.size())) {
    why = "the public key template's CKA_HSS_LEVELS/CKA_HSS_LMS_TYPE/CKA_HSS_LMOTS_TYPE differ from the private key's levels";
    return CKR_TEMPLATE_INCONSISTENT;
  }
  if (!priv.token) {
    why = "an HSS private key is a token object (CKA_TOKEN CK_TRUE): its index lives in a state file that "
          "must outlive the session";
    return CKR_TEMPLATE_INCONSISTENT;
  }
  if (!priv.is_private) {
    why = "an HSS private key is a private object (CKA_PRIVATE CK_TRUE)";
    return CKR_TEMPLATE_INCONSISTENT;
  }
  pub.level_count = priv.level_count = static_cast<std::uint32_t>(out.levels.size());
  return CKR_OK;
}

CK_RV parse_public_key_template(const CK_ATTRIBUTE* attributes, CK_ULONG count, Object& out, std::string& why) {
  out = Object{};
  if (CK_RV rv = check_array_and_duplicates(attributes, count, "the object", why); rv != CKR_OK) return rv;
  bool has_class = false, has_type = false;
  for (CK_ULONG i = 0; i < count; ++i) {
    CK_ULONG v = 0;
    if (attributes[i].type == CKA_CLASS || attributes[i].type == CKA_KEY_TYPE) {
      if (CK_RV rv = read_ulong(attributes[i], v, why); rv != CKR_OK) return rv;
      if (attributes[i].type == CKA_CLASS) {
        has_class = true;
        if (v == CKO_PRIVATE_KEY) {
          why = "HSS private keys are only generated on the token (C_GenerateKeyPair), never imported: a copy "
                "of a stateful key could sign an index twice";
          return CKR_TEMPLATE_INCONSISTENT;
        }
        if (v != CKO_PUBLIC_KEY) {
          why = "this token holds HSS keys only: CKA_CLASS " + std::to_string(v) + " cannot be created";
          return CKR_ATTRIBUTE_VALUE_INVALID;
        }
      } else {
        has_type = true;
        if (v != CKK_HSS) {
          why = "this token holds HSS keys only (CKA_KEY_TYPE CKK_HSS)";
          return CKR_ATTRIBUTE_VALUE_INVALID;
        }
      }
    }
  }
  if (!has_class || !has_type) {
    why = "C_CreateObject needs CKA_CLASS CKO_PUBLIC_KEY and CKA_KEY_TYPE CKK_HSS";
    return CKR_TEMPLATE_INCOMPLETE;
  }
  out.klass = CKO_PUBLIC_KEY;
  out.token = false;
  out.local = false;
  bool id_given = false;
  SingleForms single;
  Bytes value;
  bool has_value = false;
  for (CK_ULONG i = 0; i < count; ++i) has_value = has_value || attributes[i].type == CKA_VALUE;
  if (!has_value) {
    why = "C_CreateObject of an HSS public key needs its CKA_VALUE (the raw RFC 8554 public key)";
    return CKR_TEMPLATE_INCOMPLETE;
  }
  if (CK_RV rv = read_public(attributes, count, out, id_given, single, &value, why); rv != CKR_OK) return rv;
  std::uint32_t levels = 0;
  engine::LevelTypes top;
  if (!engine::parse_public_key(ByteView(value.data(), value.size()), levels, top)) {
    why = "CKA_VALUE is not an HSS public key of a parameter set this module knows";
    return CKR_ATTRIBUTE_VALUE_INVALID;
  }
  if ((single.has_levels && single.levels != levels) || (single.has_lms && single.lms != top.lms) ||
      (single.has_ots && single.ots != top.ots)) {
    why = "CKA_HSS_LEVELS/CKA_HSS_LMS_TYPE/CKA_HSS_LMOTS_TYPE differ from what CKA_VALUE says";
    return CKR_TEMPLATE_INCONSISTENT;
  }
  out.public_key = std::move(value);
  out.level_count = levels;
  out.levels = {top};
  return CKR_OK;
}

CK_RV apply_set_template(const CK_ATTRIBUTE* attributes, CK_ULONG count, Object& object, std::string& why) {
  if (CK_RV rv = check_array_and_duplicates(attributes, count, "the", why); rv != CKR_OK) return rv;
  Object changed = object;
  for (CK_ULONG i = 0; i < count; ++i) {
    const CK_ATTRIBUTE& a = attributes[i];
    CK_RV rv = CKR_OK;
    switch (a.type) {
      case CKA_LABEL: rv = read_bytes(a, changed.label, kMaxBytesAttribute, why); break;
      case CKA_ID: rv = read_bytes(a, changed.id, kMaxBytesAttribute, why); break;
      case CKA_SUBJECT: rv = read_bytes(a, changed.subject, kMaxBytesAttribute, why); break;
      default: {
        Bytes ignored;
        if (attribute_value(object, a.type, nullptr, ignored) == AttrStatus::kAbsent) {
          why = "attribute " + hex_type(a.type) + " is not an attribute of this object";
          return CKR_ATTRIBUTE_TYPE_INVALID;
        }
        why = "attribute " + hex_type(a.type) + " cannot be changed (CKA_LABEL, CKA_ID and CKA_SUBJECT can)";
        return CKR_ATTRIBUTE_READ_ONLY;
      }
    }
    if (rv != CKR_OK) return rv;
  }
  object = std::move(changed);
  return CKR_OK;
}

}  // namespace klms::pkcs11
