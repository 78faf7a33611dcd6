// Attribute templates into the PKCS#11 module (docs/pkcs11.md): the input becomes a template of
// up to 16 attributes (a type from the attributes the module knows, a few it does not, or any
// 32-bit value; a value of any length in a buffer of exactly that size, or a NULL pointer with a
// length), which then goes through C_GetAttributeValue of the token's public and private key,
// C_FindObjectsInit/C_FindObjects, C_CreateObject of session objects, and the key-pair template
// parser split in two. The token (one H5 key, logged in) is made once, in a temporary directory.
// The object and record file parsers get the raw input too. Nothing may crash or read out of
// bounds; every call must answer a CKR.
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "pkcs11/cryptoki.h"
#include "pkcs11/function_lists.h"
#include "pkcs11/object.h"
#include "pkcs11/record_file.h"
#include "pkcs11/templates.h"
#include "test/fuzz/fuzz_util.h"

namespace {

constexpr CK_ATTRIBUTE_TYPE kTypes[] = {
    CKA_CLASS, CKA_TOKEN, CKA_PRIVATE, CKA_LABEL, CKA_UNIQUE_ID, CKA_VALUE, CKA_KEY_TYPE, CKA_SUBJECT, CKA_ID,
    CKA_SENSITIVE, CKA_ENCRYPT, CKA_DECRYPT, CKA_WRAP, CKA_UNWRAP, CKA_SIGN, CKA_SIGN_RECOVER, CKA_VERIFY,
    CKA_VERIFY_RECOVER, CKA_DERIVE, CKA_START_DATE, CKA_END_DATE, CKA_PUBLIC_KEY_INFO, CKA_EXTRACTABLE, CKA_LOCAL,
    CKA_NEVER_EXTRACTABLE, CKA_ALWAYS_SENSITIVE, CKA_KEY_GEN_MECHANISM, CKA_MODIFIABLE, CKA_COPYABLE,
    CKA_DESTROYABLE, CKA_ALWAYS_AUTHENTICATE, CKA_WRAP_WITH_TRUSTED, CKA_ALLOWED_MECHANISMS, CKA_HSS_LEVELS,
    CKA_HSS_LMS_TYPE, CKA_HSS_LMOTS_TYPE, CKA_HSS_LMS_TYPES, CKA_HSS_LMOTS_TYPES, CKA_HSS_KEYS_REMAINING,
    klms::pkcs11::kAttrStateFile, 0x86 /* CKA_TRUSTED */, 0x120 /* CKA_MODULUS */};

struct Token {
  CK_SESSION_HANDLE session = 0;
  CK_OBJECT_HANDLE pub = 0, priv = 0;
};
Token* g_token = nullptr;

#define CHECK_OK(call) FUZZ_CHECK((call) == CKR_OK)

char g_dir[] = "/tmp/klms-fuzz-pkcs11-XXXXXX";

// The token's directory goes when the fuzzer exits.
void remove_token_dir() {
  std::error_code ignored;
  std::filesystem::remove_all(g_dir, ignored);
}

Token* make_token() {
  char* dir = g_dir;
  FUZZ_CHECK(mkdtemp(dir) != nullptr);
  std::atexit(remove_token_dir);
  const std::string token = std::string(dir) + "/token";
  setenv("KLMS_PKCS11_TOKEN_DIR", token.c_str(), 1);
  setenv("KLMS_PKCS11_LOG", "none", 1);
  setenv("KLMS_PKCS11_PIN_COST", "10", 1);
  unsetenv("KLMS_PKCS11_CONF");
  auto* t = new Token;
  CHECK_OK(C_Initialize(nullptr));
  CK_UTF8CHAR label[32];
  std::memset(label, ' ', sizeof label);
  std::memcpy(label, "fuzz", 4);
  CK_UTF8CHAR so[] = "so-pin-1", user[] = "user-pin";
  CHECK_OK(C_InitToken(0, so, 8, label));
  CHECK_OK(C_OpenSession(0, CKF_SERIAL_SESSION | CKF_RW_SESSION, nullptr, nullptr, &t->session));
  CHECK_OK(C_Login(t->session, CKU_SO, so, 8));
  CHECK_OK(C_InitPIN(t->session, user, 8));
  CHECK_OK(C_Logout(t->session));
  CHECK_OK(C_Login(t->session, CKU_USER, user, 8));
  CK_BBOOL yes = CK_TRUE;
  CK_ULONG levels = 1, lms = 5, ots = 3;  // LMS_SHA256_M32_H5, LMOTS_SHA256_N32_W4
  CK_ATTRIBUTE pub[] = {{CKA_TOKEN, &yes, 1}, {CKA_LABEL, label, 4}};
  CK_ATTRIBUTE priv[] = {{CKA_TOKEN, &yes, 1}, {CKA_LABEL, label, 4}, {CKA_HSS_LEVELS, &levels, sizeof levels},
                         {CKA_HSS_LMS_TYPES, &lms, sizeof lms}, {CKA_HSS_LMOTS_TYPES, &ots, sizeof ots}};
  CK_MECHANISM gen{CKM_HSS_KEY_PAIR_GEN, nullptr, 0};
  CHECK_OK(C_GenerateKeyPair(t->session, &gen, pub, 2, priv, 5, &t->pub, &t->priv));
  return t;
}

// The template an input spells: per attribute a selector byte, a length byte, then the value.
struct Template {
  std::vector<CK_ATTRIBUTE> attributes;
  std::vector<std::unique_ptr<std::uint8_t[]>> buffers;
};

Template spell(const std::uint8_t* data, std::size_t size) {
  Template t;
  std::size_t i = 0;
  while (i + 2 <= size && t.attributes.size() < 16) {
    const std::uint8_t selector = data[i];
    std::size_t len = data[i + 1];
    i += 2;
    CK_ATTRIBUTE a{};
    const std::size_t n_types = sizeof kTypes / sizeof kTypes[0];
    if (selector < 2 * n_types) {
      a.type = kTypes[selector % n_types];
    } else if (i + 4 <= size) {
      std::uint32_t v;
      std::memcpy(&v, data + i, 4);
      a.type = v;
      i += 4;
    }
    if ((selector & 0x80) != 0 && selector >= 2 * n_types) {
      a.pValue = nullptr;  // a NULL value with a length
      a.ulValueLen = len;
    } else {
      len = std::min(len, size - i);
      auto buffer = std::make_unique<std::uint8_t[]>(len == 0 ? 1 : len);
      std::memcpy(buffer.get(), data + i, len);
      i += len;
      a.pValue = len == 0 && (selector & 1) != 0 ? nullptr : buffer.get();
      a.ulValueLen = len;
      t.buffers.push_back(std::move(buffer));
    }
    t.attributes.push_back(a);
  }
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_token = make_token();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Token& tok = *g_token;
  Template t = spell(data, size);
  CK_ATTRIBUTE* a = t.attributes.data();
  const CK_ULONG n = t.attributes.size();

  // C_GetAttributeValue writes into the caller's buffers: each exactly as long as it says.
  for (CK_OBJECT_HANDLE h : {tok.pub, tok.priv}) {
    std::vector<CK_ATTRIBUTE> copy(t.attributes);
    (void)C_GetAttributeValue(tok.session, h, copy.data(), n);
  }
  if (C_FindObjectsInit(tok.session, a, n) == CKR_OK) {
    CK_OBJECT_HANDLE found[4];
    CK_ULONG count = 0;
    FUZZ_CHECK(C_FindObjects(tok.session, found, 4, &count) == CKR_OK);
    FUZZ_CHECK(count <= 4);
    FUZZ_CHECK(C_FindObjectsFinal(tok.session) == CKR_OK);
  }
  // C_CreateObject: only session objects (a template that asks for a token object is read by the
  // parser alone, so that the token directory does not fill up).
  klms::pkcs11::Object object;
  std::string why;
  if (klms::pkcs11::parse_public_key_template(a, n, object, why) == CKR_OK && !object.token) {
    CK_OBJECT_HANDLE h = 0;
    if (C_CreateObject(tok.session, a, n, &h) == CKR_OK) FUZZ_CHECK(C_DestroyObject(tok.session, h) == CKR_OK);
  }
  klms::pkcs11::KeyPairTemplate pair;
  const CK_ULONG half = n / 2;
  (void)klms::pkcs11::parse_key_pair_templates(a, half, a + half, n - half, pair, why);

  // The token's file parsers.
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)klms::pkcs11::parse_object(text, "0123456789abcdef0123456789abcdef");
  (void)klms::pkcs11::Records::parse(text, "token");
  return 0;
}
