// klms-evp-test: the signature context (docs/state.md §10): size queries and small buffers, final
// twice, copies before and after an update, its parameters, and the `state-file` override.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/pem.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test/evp/evp_fixture.h"

namespace {

using namespace klms::evptest;

// docs/state.md §10: size queries and too-small buffers are rejected before anything is reserved.
TEST_F(EvpTest, SizeQueriesAndSmallBuffersReserveNothing) {
  Pkey k = h5_key("q.state");
  ASSERT_TRUE(k);
  const Bytes msg = bytes_of("size");
  int max_size = EVP_PKEY_get_size(k.get());
  for (int i = 0; i < 3; ++i) {
    Md md = sign_init(libctx, k.get());
    size_t len = 0;
    ASSERT_EQ(EVP_DigestSign(md.get(), nullptr, &len, msg.data(), msg.size()), 1);
    EXPECT_EQ(len, static_cast<size_t>(max_size));
    Md md2 = sign_init(libctx, k.get());
    ASSERT_EQ(EVP_DigestSignFinal(md2.get(), nullptr, &len), 1);
    EXPECT_EQ(len, static_cast<size_t>(max_size));
  }
  EXPECT_EQ(remaining(k.get()), 32u);

  {  // one-shot, buffer one byte short
    Md md = sign_init(libctx, k.get());
    Bytes sig(static_cast<std::size_t>(max_size) - 1);
    size_t len = sig.size();
    EXPECT_NE(EVP_DigestSign(md.get(), sig.data(), &len, msg.data(), msg.size()), 1);
    EXPECT_NE(error_text().find("output buffer too small"), std::string::npos);
  }
  {  // streaming with no update, buffer too small
    Md md = sign_init(libctx, k.get());
    EXPECT_FALSE(final_sign(md.get(), static_cast<std::size_t>(max_size) - 1));
    EXPECT_NE(error_text().find("output buffer too small"), std::string::npos);
  }
  {  // EVP_PKEY_sign, buffer too small
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(libctx, k.get(), nullptr);
    ASSERT_EQ(EVP_PKEY_sign_init(ctx), 1);
    Bytes sig(16);
    size_t len = sig.size();
    EXPECT_NE(EVP_PKEY_sign(ctx, sig.data(), &len, msg.data(), msg.size()), 1);
    EVP_PKEY_CTX_free(ctx);
    ERR_clear_error();
  }
  EXPECT_EQ(remaining(k.get()), 32u) << "nothing was reserved";

  // Streaming: the index is reserved at the first update; a too-small final does not consume it,
  // and the retry with a right-sized buffer gives the one signature of this operation.
  Md md = sign_init(libctx, k.get());
  ASSERT_EQ(EVP_DigestSignUpdate(md.get(), msg.data(), msg.size()), 1);
  EXPECT_EQ(remaining(k.get()), 31u);
  EXPECT_FALSE(final_sign(md.get(), static_cast<std::size_t>(max_size) - 1));
  ERR_clear_error();
  auto sig = final_sign(md.get());
  ASSERT_TRUE(sig) << error_text();
  EXPECT_EQ(q_of(k.get(), *sig), 0u);
  EXPECT_TRUE(verify(k.get(), msg, *sig));
  EXPECT_FALSE(final_sign(md.get())) << "and no second one";
  EXPECT_EQ(remaining(k.get()), 31u);
}

// docs/state.md §10: update, final, final: the second final fails, no second signature.
TEST_F(EvpTest, StreamingFinalTwiceGivesOneSignature) {
  Pkey k = h5_key("f.state");
  ASSERT_TRUE(k);
  const Bytes msg = bytes_of("final twice");
  for (bool finalise_flag : {false, true}) {
    SCOPED_TRACE(finalise_flag ? "EVP_MD_CTX_FLAG_FINALISE (final on the context itself)" : "final on a duplicate");
    const std::uint64_t before = remaining(k.get());
    Md md = sign_init(libctx, k.get());
    if (finalise_flag) EVP_MD_CTX_set_flags(md.get(), EVP_MD_CTX_FLAG_FINALISE);
    ASSERT_EQ(EVP_DigestSignUpdate(md.get(), msg.data(), 4), 1);
    ASSERT_EQ(EVP_DigestSignUpdate(md.get(), msg.data() + 4, msg.size() - 4), 1);
    auto first = final_sign(md.get());
    ASSERT_TRUE(first) << error_text();
    EXPECT_TRUE(verify(k.get(), msg, *first));
    auto second = final_sign(md.get());
    EXPECT_FALSE(second) << "a second final produced a second signature with q " << q_of(k.get(), *second);
    const std::string err = error_text();
    if (!finalise_flag) {
      EXPECT_NE(err.find("signature already produced"), std::string::npos) << err;
    }
    EXPECT_NE(EVP_DigestSignUpdate(md.get(), msg.data(), 1), 1) << "no update after the final either";
    ERR_clear_error();
    EXPECT_EQ(remaining(k.get()), before - 1);
  }
}

// docs/state.md §10: a copy made after an update shares the operation: exactly one final succeeds.
TEST_F(EvpTest, CopyAfterUpdateSignsOnce) {
  Pkey k = h5_key("c.state");
  ASSERT_TRUE(k);
  const Bytes msg = bytes_of("copied context");
  for (bool copy_first : {false, true}) {
    SCOPED_TRACE(copy_first ? "final on the copy first" : "final on the original first");
    const std::uint64_t before = remaining(k.get());
    Md md = sign_init(libctx, k.get());
    ASSERT_EQ(EVP_DigestSignUpdate(md.get(), msg.data(), msg.size()), 1);
    Md copy(EVP_MD_CTX_new());
    ASSERT_EQ(EVP_MD_CTX_copy_ex(copy.get(), md.get()), 1) << error_text();
    EVP_MD_CTX* a = copy_first ? copy.get() : md.get();
    EVP_MD_CTX* b = copy_first ? md.get() : copy.get();
    auto first = final_sign(a);
    ASSERT_TRUE(first) << error_text();
    EXPECT_TRUE(verify(k.get(), msg, *first));
    auto second = final_sign(b);
    EXPECT_FALSE(second) << "both copies signed: q " << q_of(k.get(), *first) << " and "
                         << q_of(k.get(), *second);
    EXPECT_NE(error_text().find("signature already produced"), std::string::npos);
    EXPECT_EQ(remaining(k.get()), before - 1);
  }
}

// A copy made before any update is an operation of its own, with its own index.
TEST_F(EvpTest, CopyBeforeUpdateIsIndependent) {
  Pkey k = h5_key("c2.state");
  ASSERT_TRUE(k);
  const Bytes m1 = bytes_of("first copy"), m2 = bytes_of("second copy");
  Md md = sign_init(libctx, k.get());
  Md copy(EVP_MD_CTX_new());
  ASSERT_EQ(EVP_MD_CTX_copy_ex(copy.get(), md.get()), 1);
  ASSERT_EQ(EVP_DigestSignUpdate(md.get(), m1.data(), m1.size()), 1);
  ASSERT_EQ(EVP_DigestSignUpdate(copy.get(), m2.data(), m2.size()), 1);
  auto s1 = final_sign(md.get());
  auto s2 = final_sign(copy.get());
  ASSERT_TRUE(s1 && s2) << error_text();
  EXPECT_NE(q_of(k.get(), *s1), q_of(k.get(), *s2));
  EXPECT_TRUE(verify(k.get(), m1, *s1));
  EXPECT_TRUE(verify(k.get(), m2, *s2));
  EXPECT_EQ(remaining(k.get()), 30u);
}

// A copy that fed other data after the copy can never sign a mixture of the two messages.
TEST_F(EvpTest, DivergedCopyCannotSignAMixture) {
  Pkey k = h5_key("d.state");
  ASSERT_TRUE(k);
  const Bytes a = bytes_of("common prefix|"), b = bytes_of("original's tail"), c = bytes_of("copy's tail");
  auto cat = [](Bytes x, const Bytes& y) {
    x.insert(x.end(), y.begin(), y.end());
    return x;
  };
  {  // the original goes on; the copy's different update and its final fail
    Md md = sign_init(libctx, k.get());
    ASSERT_EQ(EVP_DigestSignUpdate(md.get(), a.data(), a.size()), 1);
    Md copy(EVP_MD_CTX_new());
    ASSERT_EQ(EVP_MD_CTX_copy_ex(copy.get(), md.get()), 1);
    ASSERT_EQ(EVP_DigestSignUpdate(md.get(), b.data(), b.size()), 1);
    EXPECT_NE(EVP_DigestSignUpdate(copy.get(), c.data(), c.size()), 1);
    EXPECT_NE(error_text().find("fed other data"), std::string::npos);
    auto bad = final_sign(copy.get());
    EXPECT_FALSE(bad) << "the copy signed something: verifies over A|B " << verify(k.get(), cat(a, b), *bad)
                      << ", A|C " << verify(k.get(), cat(a, c), *bad) << ", A|B|C "
                      << verify(k.get(), cat(cat(a, b), c), *bad);
    ERR_clear_error();
    auto good = final_sign(md.get());
    ASSERT_TRUE(good) << error_text();
    EXPECT_TRUE(verify(k.get(), cat(a, b), *good));
    EXPECT_FALSE(verify(k.get(), cat(a, c), *good));
  }
  {  // the copy goes on; the original (which saw only A) cannot sign A with a hash of A|C
    Md md = sign_init(libctx, k.get());
    ASSERT_EQ(EVP_DigestSignUpdate(md.get(), a.data(), a.size()), 1);
    Md copy(EVP_MD_CTX_new());
    ASSERT_EQ(EVP_MD_CTX_copy_ex(copy.get(), md.get()), 1);
    ASSERT_EQ(EVP_DigestSignUpdate(copy.get(), c.data(), c.size()), 1);
    auto bad = final_sign(md.get());
    EXPECT_FALSE(bad) << "the original signed: verifies over A " << verify(k.get(), a, *bad) << ", A|C "
                      << verify(k.get(), cat(a, c), *bad);
    ERR_clear_error();
    EXPECT_NE(EVP_DigestSignUpdate(md.get(), b.data(), b.size()), 1);
    ERR_clear_error();
    auto good = final_sign(copy.get());
    ASSERT_TRUE(good) << error_text();
    EXPECT_TRUE(verify(k.get(), cat(a, c), *good));
  }
  EXPECT_EQ(remaining(k.get()), 30u) << "one index per operation, none for the refused copies";
}

TEST_F(EvpTest, ContextParametersAreCheckedAndFixedAtTheFirstUpdate) {
  Pkey k = h5_key("cp.state");
  ASSERT_TRUE(k);
  // reserve 0 is refused.
  EXPECT_FALSE(sign_init(libctx, k.get(), SignOptions{0, ""}));
  EXPECT_NE(error_text().find("reserve"), std::string::npos);
  // After the first update neither reserve nor state-file may change.
  Md md = sign_init(libctx, k.get());
  ASSERT_EQ(EVP_DigestSignUpdate(md.get(), "x", 1), 1);
  std::uint64_t r = 5;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_uint64("reserve", &r), OSSL_PARAM_construct_end()};
  EXPECT_NE(EVP_PKEY_CTX_set_params(EVP_MD_CTX_get_pkey_ctx(md.get()), params), 1);
  EXPECT_NE(error_text().find("before the first update"), std::string::npos);
  auto sig = final_sign(md.get());
  ASSERT_TRUE(sig);
  EXPECT_EQ(remaining(k.get()), 31u) << "the refused reserve did not apply";
}

// ---- The state file through the signature context (`state-file` override) ----

TEST_F(EvpTest, StateFileOverrideNeverCreatesAndChecksIdentity) {
  Pkey k = h5_key("o.state");
  Pkey other = h5_key("other.state");
  ASSERT_TRUE(k && other);
  const Bytes msg = bytes_of("override");
  const std::string absent = dir.file("absent.state");
  EXPECT_FALSE(sign(k.get(), msg, SignOptions{std::nullopt, absent}));
  EXPECT_NE(error_text().find("state file missing"), std::string::npos);
  EXPECT_NE(::access(absent.c_str(), F_OK), 0) << "an override never creates a file";

  EXPECT_FALSE(sign(k.get(), msg, SignOptions{std::nullopt, dir.file("other.state")}));
  EXPECT_NE(error_text().find("belongs to another key"), std::string::npos);

  std::filesystem::copy_file(dir.file("o.state"), dir.file("copy.state"));
  ::chmod(dir.file("copy.state").c_str(), 0600);
  EXPECT_FALSE(sign(k.get(), msg, SignOptions{std::nullopt, dir.file("copy.state")}));
  EXPECT_NE(error_text().find("copied, restored or moved"), std::string::npos);

  // A hard link is the same file: accepted, and it shares the index with the key's own path.
  ASSERT_EQ(::link(dir.file("o.state").c_str(), dir.file("link.state").c_str()), 0);
  auto via_link = sign(k.get(), msg, SignOptions{std::nullopt, dir.file("link.state")});
  ASSERT_TRUE(via_link) << error_text();
  auto direct = sign(k.get(), msg);
  ASSERT_TRUE(direct);
  EXPECT_EQ(q_of(k.get(), *via_link), 0u);
  EXPECT_EQ(q_of(k.get(), *direct), 1u);
  EXPECT_EQ(remaining(other.get()), 32u);
}

}  // namespace
