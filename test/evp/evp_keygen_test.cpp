// klms-evp-test: key generation and its parameters, the key as it is encoded and decoded (no
// index in the key file, no private key through parameters), and seeded keys (docs/state.md §9,
// §11, §13).
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/pem.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "test/evp/evp_fixture.h"

namespace {

using namespace klms::evptest;

// ---- Key generation and parameter queries ----

TEST_F(EvpTest, KeygenWithParametersAndQueries) {
  const std::string state = dir.file("a.state");
  Pkey k = generate(libctx, {{"lms", kH5}, {"ots", kW4}, {"state-file", state}});
  ASSERT_TRUE(k) << error_text();
  EXPECT_TRUE(EVP_PKEY_is_a(k.get(), "HSS-LMS"));
  struct stat st {};
  ASSERT_EQ(::stat(state.c_str(), &st), 0) << "key generation creates the state file";
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 8192);

  std::uint64_t max = 0;
  ASSERT_TRUE(uint64_param(k.get(), "max-signatures", max));
  EXPECT_EQ(max, 32u);
  EXPECT_EQ(remaining(k.get()), 32u);
  EXPECT_EQ(utf8_param(k.get(), "state-file"), state);
  EXPECT_EQ(utf8_param(k.get(), "lms"), kH5);
  EXPECT_EQ(utf8_param(k.get(), "ots"), kW4);
  int max_size = 0;
  ASSERT_EQ(EVP_PKEY_get_int_param(k.get(), OSSL_PKEY_PARAM_MAX_SIZE, &max_size), 1);
  const auto shape = key_shape(k.get());
  ASSERT_EQ(shape.size(), 1u);
  EXPECT_EQ(static_cast<std::size_t>(max_size), 4 + shape[0].lms_signature_bytes());
  EXPECT_EQ(EVP_PKEY_get_size(k.get()), max_size);
  char mdname[64] = {};
  EXPECT_EQ(EVP_PKEY_get_default_digest_name(k.get(), mdname, sizeof mdname), 2) << "mandatory digest";
  EXPECT_STREQ(mdname, "UNDEF");
  int seeded = -1;
  ASSERT_EQ(EVP_PKEY_get_int_param(k.get(), "seeded", &seeded), 1);
  EXPECT_EQ(seeded, 0);

  // The PKCS#8 key round-trips with its state-file reference (and no index: see KeyFileHoldsNoIndex).
  Pkey again = decode(libctx, pem(k.get()));
  ASSERT_TRUE(again) << error_text();
  EXPECT_EQ(utf8_param(again.get(), "state-file"), state);
  EXPECT_EQ(EVP_PKEY_eq(k.get(), again.get()), 1);
}

TEST_F(EvpTest, KeygenShortFormTwoLevels) {
  Pkey k = generate(libctx, {{"hash", "LSH256"}, {"height", "5,5"}, {"winternitz", "4"},
                             {"state-file", dir.file("l2.state")}});
  ASSERT_TRUE(k) << error_text();
  std::uint64_t max = 0;
  ASSERT_TRUE(uint64_param(k.get(), "max-signatures", max));
  EXPECT_EQ(max, 1024u);
  EXPECT_EQ(utf8_param(k.get(), "lms"), "LMS_LSH256_M32_H5,LMS_LSH256_M32_H5");
  // The lower tree changes every 32 signatures: sign across that boundary, one-shot and streaming.
  const Bytes msg = bytes_of("two levels");
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 34; ++i) {
    auto sig = (i % 2 == 0) ? sign(k.get(), msg) : sign_streaming(k.get(), msg, 3);
    ASSERT_TRUE(sig) << error_text();
    const std::uint64_t q = q_of(k.get(), *sig);
    EXPECT_EQ(q, static_cast<std::uint64_t>(i));
    EXPECT_TRUE(seen.insert(q).second);
    if (i == 0 || i >= 31) {
      EXPECT_TRUE(verify(k.get(), msg, *sig)) << "q " << q;
    }
  }
  EXPECT_EQ(remaining(k.get()), 1024u - 34u);
}

TEST_F(EvpTest, KeygenDefaultStateFileUnderStateDir) {
  Pkey k = generate(libctx, {{"lms", kH5}, {"ots", kW4}});
  ASSERT_TRUE(k) << error_text();
  unsigned char pub[256];
  size_t len = 0;
  ASSERT_EQ(EVP_PKEY_get_octet_string_param(k.get(), OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub, &len), 1);
  ASSERT_GE(len, 28u);
  char hex[33] = {};
  for (int i = 0; i < 16; ++i) std::snprintf(hex + 2 * i, 3, "%02x", pub[12 + i]);
  const std::string expected = dir.path() + "/" + hex + ".state";
  EXPECT_EQ(utf8_param(k.get(), "state-file"), expected);
  EXPECT_EQ(::access(expected.c_str(), F_OK), 0);
}

TEST_F(EvpTest, KeygenRefusesToOverwriteAStateFile) {
  const std::string state = dir.file("exists.state");
  Pkey first = h5_key("exists.state");
  ASSERT_TRUE(first);
  ASSERT_TRUE(sign(first.get(), bytes_of("m")));
  const std::string before = read_file(state);
  Pkey second = generate(libctx, {{"lms", kH5}, {"ots", kW4}, {"state-file", state}});
  EXPECT_FALSE(second);
  EXPECT_NE(error_text().find("state file already exists"), std::string::npos);
  EXPECT_EQ(read_file(state), before) << "the existing state file is untouched";
  EXPECT_EQ(remaining(first.get()), 31u);
}

TEST_F(EvpTest, KeygenRejectsBadParameters) {
  EXPECT_FALSE(generate(libctx, {{"lms", "LMS_NOPE_M32_H5"}, {"state-file", dir.file("x.state")}}));
  EXPECT_NE(error_text().find("lms"), std::string::npos);
  EXPECT_FALSE(generate(libctx, {{"lms", kH5}, {"height", "5"}, {"state-file", dir.file("y.state")}}));
  EXPECT_NE(error_text().find("cannot be mixed"), std::string::npos);
  EXPECT_NE(::access(dir.file("x.state").c_str(), F_OK), 0);
  EXPECT_NE(::access(dir.file("y.state").c_str(), F_OK), 0);
}

// §13: a seeded key signs only with KLMS_ALLOW_SEEDED_KEYS=1; generating it again gives the same
// key with a fresh state at index 0. §11: its signatures at one index are the same bytes.
TEST_F(EvpTest, SeededKeysAreMarkedRefusedAndReproducible) {
  Bytes seed(32), identifier(16);
  for (std::size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<unsigned char>(0xA0 + i);
  for (std::size_t i = 0; i < identifier.size(); ++i) identifier[i] = static_cast<unsigned char>(i * 7);
  Pkey k = generate(libctx, {{"lms", kH5}, {"ots", kW4}, {"state-file", dir.file("seeded1.state")}}, &seed, &identifier);
  ASSERT_TRUE(k) << error_text();
  int seeded = 0;
  ASSERT_EQ(EVP_PKEY_get_int_param(k.get(), "seeded", &seeded), 1);
  EXPECT_EQ(seeded, 1);
  const Bytes msg = bytes_of("seeded");

  ::unsetenv("KLMS_ALLOW_SEEDED_KEYS");
  EXPECT_FALSE(sign(k.get(), msg));
  EXPECT_NE(error_text().find("seeded key refused"), std::string::npos);
  ::setenv("KLMS_ALLOW_SEEDED_KEYS", "0", 1);
  EXPECT_FALSE(sign(k.get(), msg));
  EXPECT_NE(error_text().find("seeded key refused"), std::string::npos);
  ::setenv("KLMS_ALLOW_SEEDED_KEYS", "1", 1);
  auto s1 = sign(k.get(), msg);
  ASSERT_TRUE(s1) << error_text();
  EXPECT_TRUE(verify(k.get(), msg, *s1));
  const std::uint64_t q1 = q_of(k.get(), *s1);

  Pkey again = generate(libctx, {{"lms", kH5}, {"ots", kW4}, {"state-file", dir.file("seeded2.state")}}, &seed,
                        &identifier);
  ASSERT_TRUE(again) << error_text();
  EXPECT_EQ(EVP_PKEY_eq(k.get(), again.get()), 1) << "the same key from the same seed and identifier";
  EXPECT_EQ(remaining(again.get()), 32u) << "with a fresh state file";
  // Move the fresh state up to q1, then sign the same message at the same index.
  for (std::uint64_t i = 0; i < q1; ++i) ASSERT_TRUE(sign(again.get(), bytes_of("filler")));
  auto s2 = sign(again.get(), msg);
  ASSERT_TRUE(s2) << error_text();
  EXPECT_EQ(q_of(again.get(), *s2), q1);
  EXPECT_EQ(*s1, *s2) << "deterministic randomizer: the same index gives the same signature";
}

// §9: only the public key leaves or enters through parameters.
TEST_F(EvpTest, PrivateKeyNeverTravelsAsParameters) {
  Pkey k = h5_key("x.state");
  ASSERT_TRUE(k);
  OSSL_PARAM* params = nullptr;
  EXPECT_NE(EVP_PKEY_todata(k.get(), EVP_PKEY_KEYPAIR, &params), 1);
  OSSL_PARAM_free(params);
  params = nullptr;
  ERR_clear_error();
  ASSERT_EQ(EVP_PKEY_todata(k.get(), EVP_PKEY_PUBLIC_KEY, &params), 1) << error_text();
  for (const OSSL_PARAM* p = params; p->key != nullptr; ++p) {
    EXPECT_TRUE(std::strcmp(p->key, OSSL_PKEY_PARAM_PUB_KEY) == 0) << "exported " << p->key;
  }
  // Imported back it is a public key only: it verifies, it cannot sign.
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(libctx, "HSS-LMS", nullptr);
  EVP_PKEY* pub = nullptr;
  ASSERT_EQ(EVP_PKEY_fromdata_init(ctx), 1);
  ASSERT_EQ(EVP_PKEY_fromdata(ctx, &pub, EVP_PKEY_PUBLIC_KEY, params), 1) << error_text();
  EXPECT_NE(EVP_PKEY_fromdata(ctx, &pub, EVP_PKEY_KEYPAIR, params), 1);
  ERR_clear_error();
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  Pkey public_only(pub);
  const Bytes msg = bytes_of("pub");
  EXPECT_FALSE(sign(public_only.get(), msg));
  ERR_clear_error();
  auto sig = sign(k.get(), msg);
  ASSERT_TRUE(sig);
  EXPECT_TRUE(verify(public_only.get(), msg, *sig));
}

// "Where the state lives": the private key holds no index; encoding it again after signing gives
// the same bytes.
TEST_F(EvpTest, KeyFileHoldsNoIndex) {
  Pkey k = h5_key("n.state");
  ASSERT_TRUE(k);
  const std::string before = pem(k.get());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sign(k.get(), bytes_of("n")));
  EXPECT_EQ(pem(k.get()), before);
  Pkey decoded = decode(libctx, before);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(remaining(decoded.get()), 29u) << "the index comes from the state file";
}

}  // namespace
