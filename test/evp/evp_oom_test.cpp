// An allocation failure inside a provider function surfaces as an error on OpenSSL's queue with the
// provider's own reason ("out of memory"), and the call returns failure: no exception crosses the
// C ABI into libcrypto or the application, no crash (provider/c_boundary.h).
//
// How the failure is made: this program replaces malloc (fail_alloc.c; glibc supports replacing it
// in the executable, every call goes on to glibc's own __libc_* functions). Armed, the next
// allocation on this thread fails, once. The provider's operator new (its C++ runtime is linked in statically)
// takes its memory from malloc, so the C++ allocation the provider makes next throws
// std::bad_alloc, exactly as under real memory exhaustion. Each test counts that the armed failure
// happened inside the call, so a code change that no longer allocates there fails the test
// instead of passing it silently. Not built under the sanitizers (their runtimes own malloc).
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "test/evp/evp_util.h"

extern "C" {
int klms_fail_next_allocation(int on);  // fail_alloc.c: fails the next allocation made from klms.so
int klms_failed_allocations(void);
}

namespace {

using klms::evptest::error_text;

// Runs `call` with the next allocation failing; returns its result. Exceptions are not caught
// here: one that crossed OpenSSL fails the test (GoogleTest reports it).
template <typename F>
int with_failing_allocation(F&& call, int& failures_inside) {
  const int before = klms_failed_allocations();
  if (klms_fail_next_allocation(1) == 0) {
    ADD_FAILURE() << "klms.so is not loaded in this process: nothing to fail";
    failures_inside = 0;
    return -1;
  }
  const int r = call();
  klms_fail_next_allocation(0);
  failures_inside = klms_failed_allocations() - before;
  return r;
}

// The first error on the queue: from the klms provider, with reason "out of memory".
void expect_provider_out_of_memory() {
  const unsigned long e = ERR_peek_error();
  ASSERT_NE(e, 0u) << "no error on the queue";
  const char* reason = ERR_reason_error_string(e);
  EXPECT_STREQ(reason != nullptr ? reason : "(none)", "out of memory") << error_text();
  const char* lib = ERR_lib_error_string(e);
  EXPECT_NE(lib != nullptr ? std::strstr(lib, "klms") : nullptr, nullptr)
      << "error not raised by the klms provider: " << (lib != nullptr ? lib : "(no library)");
  ERR_clear_error();
}

std::vector<unsigned char> from_hex(const std::string& hex) {
  std::vector<unsigned char> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<unsigned char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

// RFC 8554 Appendix F test case 1's HSS public key (L = 2, LMS_SHA256_M32_H5 / LMOTS_SHA256_N32_W8).
std::vector<unsigned char> rfc8554_public_key() {
  std::ifstream in(KLMS_TEST_DATA_DIR "/lms/rfc8554_appendixF.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("public_key = ", 0) == 0) return from_hex(line.substr(13));
  }
  return {};
}

class OomTest : public ::testing::Test {
 protected:
  void SetUp() override {
    libctx = klms::evptest::load_library_context(false);
    ASSERT_NE(libctx, nullptr) << "cannot load the klms provider: " << error_text();
    const std::vector<unsigned char> pub = rfc8554_public_key();
    ASSERT_EQ(pub.size(), 60u) << "test/data/lms/rfc8554_appendixF.txt";
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx, "HSS-LMS", "provider=klms");
    ASSERT_NE(ctx, nullptr) << error_text();
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, const_cast<unsigned char*>(pub.data()), pub.size()),
        OSSL_PARAM_construct_end()};
    const bool ok = EVP_PKEY_fromdata_init(ctx) == 1 && EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) == 1;
    EVP_PKEY_CTX_free(ctx);
    ASSERT_TRUE(ok) << error_text();
    // The thread's error state exists before anything fails (OpenSSL allocates it on first use).
    ERR_raise_data(ERR_LIB_USER, 1, "warm-up");
    ERR_clear_error();
  }
  void TearDown() override {
    EVP_PKEY_free(key);
    OSSL_LIB_CTX_free(libctx);
  }
  OSSL_LIB_CTX* libctx = nullptr;
  EVP_PKEY* key = nullptr;
};

// Key manager get_params: the parameter-set name is a std::string longer than the small-string
// buffer, so asking for it allocates in the provider.
TEST_F(OomTest, KeyGetParams) {
  char name[128];
  size_t len = 0;
  int failures = 0;
  const int r = with_failing_allocation(
      [&] { return EVP_PKEY_get_utf8_string_param(key, "lms", name, sizeof name, &len); }, failures);
  ASSERT_EQ(failures, 1) << "the armed allocation failure did not happen inside the call";
  EXPECT_EQ(r, 0);
  expect_provider_out_of_memory();
  // Nothing is left broken: the same query succeeds once memory is back.
  ASSERT_EQ(EVP_PKEY_get_utf8_string_param(key, "lms", name, sizeof name, &len), 1) << error_text();
  EXPECT_STREQ(name, "LMS_SHA256_M32_H5");
}

// Signature set_ctx_params: a state-file override is made absolute in a std::string.
TEST_F(OomTest, SignatureSetCtxParams) {
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(libctx, key, "provider=klms");
  ASSERT_NE(ctx, nullptr) << error_text();
  ASSERT_EQ(EVP_PKEY_verify_init(ctx), 1) << error_text();
  char path[] = "/tmp/klms-oom-test-a-path-longer-than-small-strings.state";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("state-file", path, 0), OSSL_PARAM_construct_end()};
  int failures = 0;
  const int r = with_failing_allocation([&] { return EVP_PKEY_CTX_set_params(ctx, params); }, failures);
  ASSERT_EQ(failures, 1) << "the armed allocation failure did not happen inside the call";
  EXPECT_EQ(r, 0);
  expect_provider_out_of_memory();
  EXPECT_EQ(EVP_PKEY_CTX_set_params(ctx, params), 1) << error_text();
  EVP_PKEY_CTX_free(ctx);
}

// Streaming verification buffers the message: the first update allocates the buffer.
TEST_F(OomTest, DigestVerifyUpdate) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ASSERT_NE(md, nullptr);
  ASSERT_EQ(EVP_DigestVerifyInit_ex(md, nullptr, nullptr, libctx, "provider=klms", key, nullptr), 1) << error_text();
  const unsigned char msg[] = "message";
  int failures = 0;
  const int r = with_failing_allocation([&] { return EVP_DigestVerifyUpdate(md, msg, sizeof msg); }, failures);
  ASSERT_EQ(failures, 1) << "the armed allocation failure did not happen inside the call";
  EXPECT_EQ(r, 0);
  expect_provider_out_of_memory();
  EVP_MD_CTX_free(md);
}

}  // namespace
