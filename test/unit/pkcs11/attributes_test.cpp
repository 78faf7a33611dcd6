// The module's attribute rules without a client in between (the PyKCS11 recipes cannot see
// CK_UNAVAILABLE_INFORMATION): C_GetAttributeValue's five cases over a whole template, template
// parsing's CKRs, and the strictness of the token's file parser (pkcs11/object.h,
// pkcs11/templates.h, pkcs11/record_file.h).
#include <gtest/gtest.h>

#include <cstring>

#include "pkcs11/object.h"
#include "pkcs11/record_file.h"
#include "pkcs11/templates.h"

namespace klms::pkcs11 {
namespace {

// A real HSS public key: LMS_SHA256_M32_H5 / LMOTS_SHA256_N32_W4, L = 1 (RFC 8554 §5.3 layout).
Bytes public_key() {
  Bytes k(12 + 16 + 32, 0xab);
  const std::uint8_t head[12] = {0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 3};
  std::memcpy(k.data(), head, sizeof head);
  return k;
}

Object private_key() {
  Object o;
  o.klass = CKO_PRIVATE_KEY;
  o.is_private = true;
  o.label = {'k'};
  o.public_key = public_key();
  o.level_count = 1;
  o.levels = {{5, 3}};
  o.sealed = Bytes(40, 1);
  o.uid = "0123456789abcdef0123456789abcdef";
  return o;
}

TEST(GetAttributeValue, EveryEntryAnsweredAndTheWorstCaseReturned) {
  const Object o = private_key();
  CK_BYTE label[4];
  CK_BYTE short_buffer[1];
  CK_ATTRIBUTE t[] = {{CKA_LABEL, label, sizeof label},
                      {CKA_VALUE, nullptr, 0},           // case 1: sensitive
                      {0x120 /* CKA_MODULUS */, nullptr, 0},  // case 2: not an attribute of this object
                      {CKA_PUBLIC_KEY_INFO, nullptr, 0},  // case 3: the length
                      {CKA_ID, nullptr, 0},
                      {CKA_PUBLIC_KEY_INFO, short_buffer, sizeof short_buffer}};  // case 5: too small
  const CK_RV rv = get_attribute_values(o, t, 6, [](std::uint64_t& n) {
    n = 7;
    return true;
  });
  EXPECT_TRUE(rv == CKR_ATTRIBUTE_SENSITIVE || rv == CKR_ATTRIBUTE_TYPE_INVALID || rv == CKR_BUFFER_TOO_SMALL);
  EXPECT_EQ(t[0].ulValueLen, 1u);  // case 4: copied, the length set
  EXPECT_EQ(label[0], 'k');
  EXPECT_EQ(t[1].ulValueLen, CK_UNAVAILABLE_INFORMATION);
  EXPECT_EQ(t[2].ulValueLen, CK_UNAVAILABLE_INFORMATION);
  EXPECT_EQ(t[3].ulValueLen, 20u + public_key().size());
  EXPECT_EQ(t[4].ulValueLen, 0u);
  EXPECT_EQ(t[5].ulValueLen, CK_UNAVAILABLE_INFORMATION);
}

TEST(GetAttributeValue, KeysRemainingIsLiveAndCapped) {
  const Object o = private_key();
  CK_ULONG n = 0;
  CK_ATTRIBUTE t{CKA_HSS_KEYS_REMAINING, &n, sizeof n};
  ASSERT_EQ(get_attribute_values(o, &t, 1, [](std::uint64_t& v) { v = std::uint64_t{1} << 40; return true; }), CKR_OK);
  EXPECT_EQ(n, 0xffffffffUL);  // min(remaining, 2^32 - 1)
  EXPECT_EQ(get_attribute_values(o, &t, 1, [](std::uint64_t&) { return false; }), CKR_FUNCTION_FAILED);
}

TEST(Templates, TheLevelsComeFromThePrivateTemplate) {
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  CK_ULONG levels = 2, lms[] = {5, 5}, ots[] = {3, 3}, one = 1;
  CK_ATTRIBUTE priv[] = {{CKA_TOKEN, &yes, 1}, {CKA_HSS_LEVELS, &levels, sizeof levels},
                         {CKA_HSS_LMS_TYPES, lms, sizeof lms}, {CKA_HSS_LMOTS_TYPES, ots, sizeof ots}};
  KeyPairTemplate t;
  std::string why;
  ASSERT_EQ(parse_key_pair_templates(nullptr, 0, priv, 4, t, why), CKR_OK) << why;
  ASSERT_EQ(t.levels.size(), 2u);
  EXPECT_EQ(t.levels[1].lms, 5u);
  // Missing, inconsistent, mistyped, doubled.
  EXPECT_EQ(parse_key_pair_templates(nullptr, 0, priv, 1, t, why), CKR_TEMPLATE_INCOMPLETE);
  CK_ATTRIBUTE wrong_count[] = {{CKA_TOKEN, &yes, 1}, {CKA_HSS_LEVELS, &one, sizeof one},
                                {CKA_HSS_LMS_TYPES, lms, sizeof lms}, {CKA_HSS_LMOTS_TYPES, ots, sizeof ots}};
  EXPECT_EQ(parse_key_pair_templates(nullptr, 0, wrong_count, 4, t, why), CKR_TEMPLATE_INCONSISTENT);
  CK_ATTRIBUTE session_key[] = {{CKA_TOKEN, &no, 1}, {CKA_HSS_LEVELS, &levels, sizeof levels},
                                {CKA_HSS_LMS_TYPES, lms, sizeof lms}, {CKA_HSS_LMOTS_TYPES, ots, sizeof ots}};
  EXPECT_EQ(parse_key_pair_templates(nullptr, 0, session_key, 4, t, why), CKR_TEMPLATE_INCONSISTENT);
  CK_ATTRIBUTE short_ulong[] = {{CKA_TOKEN, &yes, 1}, {CKA_HSS_LEVELS, &levels, 4}};
  EXPECT_EQ(parse_key_pair_templates(nullptr, 0, short_ulong, 2, t, why), CKR_ATTRIBUTE_VALUE_INVALID);
  CK_ATTRIBUTE twice[] = {{CKA_TOKEN, &yes, 1}, {CKA_TOKEN, &yes, 1}};
  EXPECT_EQ(parse_key_pair_templates(nullptr, 0, twice, 2, t, why), CKR_TEMPLATE_INCONSISTENT);
  CK_ATTRIBUTE extractable[] = {{CKA_EXTRACTABLE, &yes, 1}};
  EXPECT_EQ(parse_key_pair_templates(nullptr, 0, extractable, 1, t, why), CKR_ATTRIBUTE_VALUE_INVALID);
  CK_ATTRIBUTE value[] = {{CKA_VALUE, lms, sizeof lms}};
  EXPECT_EQ(parse_key_pair_templates(nullptr, 0, value, 1, t, why), CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_EQ(parse_key_pair_templates(nullptr, 2, priv, 4, t, why), CKR_ARGUMENTS_BAD);
}

TEST(Templates, APrivateKeyIsNeverImported) {
  CK_OBJECT_CLASS klass = CKO_PRIVATE_KEY;
  CK_KEY_TYPE type = CKK_HSS;
  CK_ATTRIBUTE t[] = {{CKA_CLASS, &klass, sizeof klass}, {CKA_KEY_TYPE, &type, sizeof type}};
  Object o;
  std::string why;
  EXPECT_EQ(parse_public_key_template(t, 2, o, why), CKR_TEMPLATE_INCONSISTENT);
}

TEST(ObjectFile, RoundTripAndStrictness) {
  Object o = private_key();
  const std::string text = serialize_object(o);
  auto back = parse_object(text, o.uid);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->sealed, o.sealed);
  EXPECT_EQ(back->levels.size(), 1u);
  EXPECT_FALSE(parse_object(text + "extra 00\n", o.uid).has_value());          // an unknown record
  EXPECT_FALSE(parse_object(text.substr(0, text.size() - 1), o.uid).has_value());  // cut short
  EXPECT_FALSE(parse_object(text, "../etc/passwd").has_value());             // not a uid
  std::string other_levels = text;
  other_levels.replace(other_levels.find("levels 1"), 8, "levels 2");
  EXPECT_FALSE(parse_object(other_levels, o.uid).has_value());               // says other than its key
}

TEST(RecordFile, OneSpellingPerValue) {
  EXPECT_TRUE(Records::parse("klms-pkcs11-token 1\na 10\n", "token").has_value());
  EXPECT_FALSE(Records::parse("klms-pkcs11-token 1\na 10\na 11\n", "token").has_value());
  EXPECT_FALSE(Records::parse("klms-pkcs11-token 1\nA 10\n", "token").has_value());
  EXPECT_FALSE(Records::parse("klms-pkcs11-object 1\na 10\n", "token").has_value());
  auto r = Records::parse("klms-pkcs11-token 1\nn 010\n", "token");
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->number("n").has_value());  // a leading zero: not the one spelling
}

}  // namespace
}  // namespace klms::pkcs11
