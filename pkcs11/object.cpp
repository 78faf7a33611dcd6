#include "pkcs11/object.h"

#include <cstring>

#include "pkcs11/record_file.h"
#include "pkcs11/spki.h"

namespace klms::pkcs11 {
namespace {

constexpr const char* kObjectKind = "object";

Bytes ulong_bytes(CK_ULONG v) {
  Bytes b(sizeof v);
  std::memcpy(b.data(), &v, sizeof v);
  return b;
}

Bytes bool_bytes(bool v) { return Bytes{static_cast<std::uint8_t>(v ? CK_TRUE : CK_FALSE)}; }

Bytes ulong_array(const std::vector<CK_ULONG>& values) {
  Bytes b(values.size() * sizeof(CK_ULONG));
  if (!values.empty()) std::memcpy(b.data(), values.data(), b.size());
  return b;
}

// Type codes as 32-bit big-endian words, one per level.
Bytes pack_types(const std::vector<engine::LevelTypes>& levels, bool lms) {
  Bytes b;
  for (const auto& l : levels) {
    const std::uint32_t v = lms ? l.lms : l.ots;
    b.push_back(static_cast<std::uint8_t>(v >> 24));
    b.push_back(static_cast<std::uint8_t>(v >> 16));
    b.push_back(static_cast<std::uint8_t>(v >> 8));
    b.push_back(static_cast<std::uint8_t>(v));
  }
  return b;
}

bool unpack_types(const Bytes& lms, const Bytes& ots, std::vector<engine::LevelTypes>& out) {
  if (lms.size() != ots.size() || lms.empty() || lms.size() % 4 != 0 || lms.size() > 32) return false;
  out.clear();
  for (std::size_t i = 0; i < lms.size(); i += 4) {
    auto word = [&](const Bytes& b) {
      return std::uint32_t{b[i]} << 24 | std::uint32_t{b[i + 1]} << 16 | std::uint32_t{b[i + 2]} << 8 | b[i + 3];
    };
    out.push_back(engine::LevelTypes{word(lms), word(ots)});
  }
  return true;
}

bool valid_uid(const std::string& uid) {
  if (uid.size() != 32) return false;
  for (char c : uid) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::string object_path(const std::string& token_dir, const std::string& uid) {
  return token_dir + "/objects/" + uid + ".obj";
}

std::string state_path(const std::string& token_dir, const std::string& uid) {
  return token_dir + "/state/" + uid + ".state";
}

std::string sealing_context(const std::string& uid, const Bytes& public_key) {
  std::string s = "klms-pkcs11 private key " + uid + " ";
  s.append(reinterpret_cast<const char*>(public_key.data()), public_key.size());
  return s;
}

std::string serialize_object(const Object& o) {
  Records r;
  r.set_number("class", o.klass);
  r.set_number("private", o.is_private ? 1 : 0);
  r.set_number("modifiable", o.modifiable ? 1 : 0);
  r.set_number("usable", o.usable ? 1 : 0);
  r.set_number("local", o.local ? 1 : 0);
  r.set_bytes("label", ByteView(o.label.data(), o.label.size()));
  r.set_bytes("id", ByteView(o.id.data(), o.id.size()));
  r.set_bytes("subject", ByteView(o.subject.data(), o.subject.size()));
  r.set_number("levels", o.level_count);
  const Bytes lms = pack_types(o.levels, true);
  const Bytes ots = pack_types(o.levels, false);
  r.set_bytes("lms_types", ByteView(lms.data(), lms.size()));
  r.set_bytes("ots_types", ByteView(ots.data(), ots.size()));
  r.set_bytes("public_key", ByteView(o.public_key.data(), o.public_key.size()));
  if (o.klass == CKO_PRIVATE_KEY) r.set_bytes("sealed", ByteView(o.sealed.data(), o.sealed.size()));
  return r.serialize(kObjectKind);
}

std::optional<Object> parse_object(const std::string& text, const std::string& uid) {
  if (!valid_uid(uid)) return std::nullopt;
  auto r = Records::parse(text, kObjectKind);
  if (!r) return std::nullopt;
  Object o;
  o.uid = uid;
  o.token = true;
  auto klass = r->number("class");
  auto flag = [&](const char* name, bool& out) {
    auto v = r->number(name);
    if (!v || *v > 1) return false;
    out = *v == 1;
    return true;
  };
  auto label = r->bytes("label");
  auto id = r->bytes("id");
  auto subject = r->bytes("subject");
  auto levels = r->number("levels");
  auto lms = r->bytes("lms_types");
  auto ots = r->bytes("ots_types");
  auto pub = r->bytes("public_key");
  if (!klass || (*klass != CKO_PUBLIC_KEY && *klass != CKO_PRIVATE_KEY) || !flag("private", o.is_private) ||
      !flag("modifiable", o.modifiable) || !flag("usable", o.usable) || !flag("local", o.local) || !label || !id ||
      !subject || !levels || !lms || !ots || !pub || !unpack_types(*lms, *ots, o.levels)) {
    return std::nullopt;
  }
  o.klass = static_cast<CK_OBJECT_CLASS>(*klass);
  o.label = std::move(*label);
  o.id = std::move(*id);
  o.subject = std::move(*subject);
  o.public_key = std::move(*pub);
  // The public key must be one, and say what the file says of its levels.
  std::uint32_t count = 0;
  engine::LevelTypes top;
  if (!engine::parse_public_key(ByteView(o.public_key.data(), o.public_key.size()), count, top) || count != *levels ||
      top.lms != o.levels.front().lms || top.ots != o.levels.front().ots) {
    return std::nullopt;
  }
  o.level_count = count;
  const std::size_t expected_levels = o.klass == CKO_PRIVATE_KEY ? count : 1;
  if (o.levels.size() != expected_levels) return std::nullopt;
  if (o.klass == CKO_PRIVATE_KEY) {
    auto sealed = r->bytes("sealed");
    if (!sealed || !o.is_private) return std::nullopt;
    o.sealed = std::move(*sealed);
  } else if (r->has("sealed")) {
    return std::nullopt;
  }
  const std::size_t known = o.klass == CKO_PRIVATE_KEY ? 13 : 12;
  if (r->all().size() != known) return std::nullopt;
  return o;
}

AttrStatus attribute_value(const Object& o, CK_ATTRIBUTE_TYPE type, const RemainingReader& remaining, Bytes& out) {
  const bool priv = o.klass == CKO_PRIVATE_KEY;
  switch (type) {
    case CKA_CLASS: out = ulong_bytes(o.klass); return AttrStatus::kOk;
    case CKA_TOKEN: out = bool_bytes(o.token); return AttrStatus::kOk;
    case CKA_PRIVATE: out = bool_bytes(o.is_private); return AttrStatus::kOk;
    case CKA_MODIFIABLE: out = bool_bytes(o.modifiable); return AttrStatus::kOk;
    case CKA_COPYABLE: out = bool_bytes(false); return AttrStatus::kOk;
    case CKA_DESTROYABLE: out = bool_bytes(true); return AttrStatus::kOk;
    case CKA_LABEL: out = o.label; return AttrStatus::kOk;
    case CKA_UNIQUE_ID:
      if (o.uid.empty()) return AttrStatus::kAbsent;
      out.assign(o.uid.begin(), o.uid.end());
      return AttrStatus::kOk;
    case CKA_KEY_TYPE: out = ulong_bytes(CKK_HSS); return AttrStatus::kOk;
    case CKA_ID: out = o.id; return AttrStatus::kOk;
    case CKA_SUBJECT: out = o.subject; return AttrStatus::kOk;
    case CKA_START_DATE:
    case CKA_END_DATE: out.clear(); return AttrStatus::kOk;
    case CKA_DERIVE: out = bool_bytes(false); return AttrStatus::kOk;
    case CKA_LOCAL: out = bool_bytes(o.local); return AttrStatus::kOk;
    case CKA_KEY_GEN_MECHANISM:
      out = ulong_bytes(o.local ? CKM_HSS_KEY_PAIR_GEN : CK_UNAVAILABLE_INFORMATION);
      return AttrStatus::kOk;
    case CKA_ALLOWED_MECHANISMS: out = ulong_array({CKM_HSS}); return AttrStatus::kOk;
    case CKA_PUBLIC_KEY_INFO: out = hss_spki(ByteView(o.public_key.data(), o.public_key.size())); return AttrStatus::kOk;
    case CKA_HSS_LEVELS: out = ulong_bytes(o.level_count); return AttrStatus::kOk;
    default: break;
  }
  if (!priv) {
    switch (type) {
      case CKA_ENCRYPT:
      case CKA_VERIFY_RECOVER:
      case CKA_WRAP: out = bool_bytes(false); return AttrStatus::kOk;
      case CKA_VERIFY: out = bool_bytes(o.usable); return AttrStatus::kOk;
      case CKA_VALUE: out = o.public_key; return AttrStatus::kOk;
      case CKA_HSS_LMS_TYPE: out = ulong_bytes(o.levels.front().lms); return AttrStatus::kOk;
      case CKA_HSS_LMOTS_TYPE: out = ulong_bytes(o.levels.front().ots); return AttrStatus::kOk;
      default: return AttrStatus::kAbsent;
    }
  }
  switch (type) {
    case CKA_SENSITIVE:
    case CKA_ALWAYS_SENSITIVE:
    case CKA_NEVER_EXTRACTABLE: out = bool_bytes(true); return AttrStatus::kOk;
    case CKA_DECRYPT:
    case CKA_SIGN_RECOVER:
    case CKA_UNWRAP:
    case CKA_EXTRACTABLE:
    case CKA_WRAP_WITH_TRUSTED:
    case CKA_ALWAYS_AUTHENTICATE: out = bool_bytes(false); return AttrStatus::kOk;
    case CKA_SIGN: out = bool_bytes(o.usable); return AttrStatus::kOk;
    case CKA_VALUE: return AttrStatus::kSensitive;  // the engine's octets: exporting them would allow reuse
    case CKA_HSS_LMS_TYPES:
    case CKA_HSS_LMOTS_TYPES: {
      std::vector<CK_ULONG> v;
      for (const auto& l : o.levels) v.push_back(type == CKA_HSS_LMS_TYPES ? l.lms : l.ots);
      out = ulong_array(v);
      return AttrStatus::kOk;
    }
    case CKA_HSS_KEYS_REMAINING: {
      std::uint64_t n = 0;
      if (!remaining || !remaining(n)) return AttrStatus::kFailed;
      // The specification's value: the smaller of what is left and 2^32 - 1.
      out = ulong_bytes(static_cast<CK_ULONG>(n < 0xffffffffULL ? n : 0xffffffffULL));
      return AttrStatus::kOk;
    }
    case kAttrStateFile:
      if (o.state_file.empty()) return AttrStatus::kAbsent;
      out.assign(o.state_file.begin(), o.state_file.end());
      return AttrStatus::kOk;
    default: return AttrStatus::kAbsent;
  }
}

CK_RV get_attribute_values(const Object& o, CK_ATTRIBUTE* attributes, CK_ULONG count,
                           const RemainingReader& remaining) {
  CK_RV rv = CKR_OK;
  for (CK_ULONG i = 0; i < count; ++i) {
    CK_ATTRIBUTE& a = attributes[i];
    Bytes value;
    switch (attribute_value(o, a.type, remaining, value)) {
      case AttrStatus::kSensitive:
        a.ulValueLen = CK_UNAVAILABLE_INFORMATION;
        rv = CKR_ATTRIBUTE_SENSITIVE;
        continue;
      case AttrStatus::kAbsent:
        a.ulValueLen = CK_UNAVAILABLE_INFORMATION;
        if (rv == CKR_OK) rv = CKR_ATTRIBUTE_TYPE_INVALID;
        continue;
      case AttrStatus::kFailed:
        a.ulValueLen = CK_UNAVAILABLE_INFORMATION;
        rv = CKR_FUNCTION_FAILED;
        continue;
      case AttrStatus::kOk: break;
    }
    if (a.pValue == nullptr) {
      a.ulValueLen = value.size();
    } else if (a.ulValueLen >= value.size()) {
      if (!value.empty()) std::memcpy(a.pValue, value.data(), value.size());
      a.ulValueLen = value.size();
    } else {
      a.ulValueLen = CK_UNAVAILABLE_INFORMATION;
      if (rv == CKR_OK) rv = CKR_BUFFER_TOO_SMALL;
    }
  }
  return rv;
}

bool matches(const Object& o, const CK_ATTRIBUTE* attributes, CK_ULONG count, const RemainingReader& remaining) {
  for (CK_ULONG i = 0; i < count; ++i) {
    const CK_ATTRIBUTE& a = attributes[i];
    Bytes value;
    if (attribute_value(o, a.type, remaining, value) != AttrStatus::kOk) return false;
    if (a.ulValueLen != value.size()) return false;
    if (!value.empty() && (a.pValue == nullptr || std::memcmp(a.pValue, value.data(), value.size()) != 0)) return false;
  }
  return true;
}

}  // namespace klms::pkcs11
