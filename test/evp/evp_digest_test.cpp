// The provider's digests through EVP, as an application uses them ("Bad input"): every
// digest the klms provider offers, found by enumeration rather than a list of our own, must hash
// the same through one-shot, streaming and copied contexts, take NULL with length 0, refuse an
// update or a second final after the final with an error on the queue, and work again after a
// re-initialisation. Sizes and names come from docs/params.md "Digests"; the LSH-256 answer from KS X 3262.
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "test/evp/evp_util.h"

namespace {

using Bytes = std::vector<unsigned char>;

struct LibCtxFree {
  void operator()(OSSL_LIB_CTX* c) const noexcept { OSSL_LIB_CTX_free(c); }
};
struct MdFree {
  void operator()(EVP_MD* md) const noexcept { EVP_MD_free(md); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
};
using MdPtr = std::unique_ptr<EVP_MD, MdFree>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

// docs/params.md "Digests": canonical name -> (block size, output size).
const std::map<std::string, std::pair<int, int>> kExpected = {
    {"LSH-256-256", {128, 32}}, {"LSH-256-224", {128, 28}}, {"LSH-512-512", {256, 64}},
    {"LSH-512-384", {256, 48}}, {"LSH-512-256", {256, 32}}, {"LSH-512-224", {256, 28}},
    {"TDM-CHAM", {16, 32}},     {"TDM-LEA", {16, 32}},      {"TDM-ARIA", {16, 32}},
};

class EvpDigestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    libctx_.reset(klms::evptest::load_library_context(/*use_config=*/true));
    ASSERT_NE(libctx_, nullptr) << "cannot load the klms provider";
    ERR_clear_error();
  }
  void TearDown() override { ERR_clear_error(); }

  // Every digest whose provider is klms, by the first name OpenSSL reports for it.
  std::vector<std::string> provided_names() {
    std::vector<std::string> names;
    EVP_MD_do_all_provided(
        libctx_.get(),
        [](EVP_MD* md, void* arg) {
          if (std::string(OSSL_PROVIDER_get0_name(EVP_MD_get0_provider(md))) != "klms") return;
          static_cast<std::vector<std::string>*>(arg)->push_back(EVP_MD_get0_name(md));
        },
        &names);
    return names;
  }

  MdPtr fetch(const std::string& name) { return MdPtr(EVP_MD_fetch(libctx_.get(), name.c_str(), nullptr)); }

  Bytes one_shot(const EVP_MD* md, const Bytes& in) {
    Bytes out(EVP_MD_get_size(md));
    unsigned int len = 0;
    EXPECT_EQ(EVP_Digest(in.data(), in.size(), out.data(), &len, md, nullptr), 1);
    EXPECT_EQ(len, out.size());
    return out;
  }

  std::unique_ptr<OSSL_LIB_CTX, LibCtxFree> libctx_;
};

Bytes message(std::size_t len) {
  Bytes m(len);
  for (std::size_t i = 0; i < len; ++i) m[i] = static_cast<unsigned char>(i * 131 + 7);
  return m;
}

TEST_F(EvpDigestTest, EveryPublishedDigestIsProvidedWithItsSizes) {
  const auto names = provided_names();
  for (const auto& [name, sizes] : kExpected) {
    SCOPED_TRACE(name);
    MdPtr md = fetch(name);
    ASSERT_NE(md, nullptr);
    EXPECT_EQ(std::string(OSSL_PROVIDER_get0_name(EVP_MD_get0_provider(md.get()))), "klms");
    EXPECT_EQ(EVP_MD_get_block_size(md.get()), sizes.first);
    EXPECT_EQ(EVP_MD_get_size(md.get()), sizes.second);
  }
  EXPECT_GE(names.size(), kExpected.size());
}

TEST_F(EvpDigestTest, Lsh256KnownAnswerThroughEveryAlias) {
  const Bytes abc = {'a', 'b', 'c'};
  const Bytes expected = {0x5f, 0xbf, 0x36, 0x5d, 0xae, 0xa5, 0x44, 0x6a, 0x70, 0x53, 0xc5,
                          0x2b, 0x57, 0x40, 0x4d, 0x77, 0xa0, 0x7a, 0x5f, 0x48, 0xa1, 0xf7,
                          0xc1, 0x96, 0x3a, 0x08, 0x98, 0xba, 0x1b, 0x71, 0x47, 0x41};
  for (const char* alias : {"LSH-256-256", "LSH-256", "LSH256"}) {
    SCOPED_TRACE(alias);
    MdPtr md = fetch(alias);
    ASSERT_NE(md, nullptr);
    EXPECT_EQ(one_shot(md.get(), abc), expected);
  }
}

TEST_F(EvpDigestTest, UnknownNamesAreNotFound) {
  for (const char* name : {"LSH-256-999", "LSH-1024", "TDM-SEED", "LSH"}) {
    EXPECT_EQ(fetch(name), nullptr) << name;
  }
  EXPECT_NE(ERR_peek_error(), 0u) << "a failed fetch leaves an error";
}

// Streaming in uneven pieces, a copy taken midway, and NULL/0 updates all give the one-shot answer.
TEST_F(EvpDigestTest, StreamingCopiesAndEmptyUpdatesAgreeWithOneShot) {
  const auto names = provided_names();
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    MdPtr md = fetch(name);
    ASSERT_NE(md, nullptr);
    for (std::size_t len : {0u, 1u, 15u, 16u, 17u, 55u, 127u, 128u, 129u, 255u, 256u, 257u, 1000u}) {
      SCOPED_TRACE(len);
      const Bytes in = message(len);
      const Bytes expected = one_shot(md.get(), in);
      MdCtxPtr ctx(EVP_MD_CTX_new());
      ASSERT_EQ(EVP_DigestInit_ex(ctx.get(), md.get(), nullptr), 1);
      ASSERT_EQ(EVP_DigestUpdate(ctx.get(), nullptr, 0), 1);
      const std::size_t half = len / 2;
      std::size_t pos = 0;
      for (std::size_t step = 1; pos < half; step = step * 2 + 1) {
        const std::size_t n = std::min(step, half - pos);
        ASSERT_EQ(EVP_DigestUpdate(ctx.get(), in.data() + pos, n), 1);
        pos += n;
      }
      MdCtxPtr copy(EVP_MD_CTX_new());
      ASSERT_EQ(EVP_MD_CTX_copy_ex(copy.get(), ctx.get()), 1);
      for (EVP_MD_CTX* c : {ctx.get(), copy.get()}) {
        ASSERT_EQ(EVP_DigestUpdate(c, in.data() + pos, len - pos), 1);
        ASSERT_EQ(EVP_DigestUpdate(c, nullptr, 0), 1);
        Bytes out(expected.size());
        unsigned int out_len = 0;
        ASSERT_EQ(EVP_DigestFinal_ex(c, out.data(), &out_len), 1);
        EXPECT_EQ(out_len, expected.size());
        EXPECT_EQ(out, expected);
      }
    }
  }
}

// After the final, an update or a second final fails with an error on the queue (never a silent
// digest of nothing); a re-initialised context hashes correctly again.
TEST_F(EvpDigestTest, FinalizedContextRefusesReuseUntilReinitialised) {
  const auto names = provided_names();
  ASSERT_FALSE(names.empty());
  const Bytes in = message(100);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    MdPtr md = fetch(name);
    ASSERT_NE(md, nullptr);
    const Bytes expected = one_shot(md.get(), in);
    MdCtxPtr ctx(EVP_MD_CTX_new());
    Bytes out(expected.size());
    unsigned int out_len = 0;
    ASSERT_EQ(EVP_DigestInit_ex(ctx.get(), md.get(), nullptr), 1);
    ASSERT_EQ(EVP_DigestUpdate(ctx.get(), in.data(), in.size()), 1);
    ASSERT_EQ(EVP_DigestFinal_ex(ctx.get(), out.data(), &out_len), 1);
    EXPECT_EQ(out, expected);

    ERR_clear_error();
    EXPECT_NE(EVP_DigestUpdate(ctx.get(), in.data(), in.size()), 1) << "update after final";
    EXPECT_NE(ERR_peek_error(), 0u) << "no error on the queue for an update after final";
    ERR_clear_error();
    Bytes again(expected.size(), 0);
    EXPECT_NE(EVP_DigestFinal_ex(ctx.get(), again.data(), &out_len), 1) << "second final";
    EXPECT_NE(ERR_peek_error(), 0u) << "no error on the queue for a second final";
    ERR_clear_error();

    ASSERT_EQ(EVP_DigestInit_ex(ctx.get(), md.get(), nullptr), 1);
    ASSERT_EQ(EVP_DigestUpdate(ctx.get(), in.data(), in.size()), 1);
    Bytes reinit(expected.size());
    ASSERT_EQ(EVP_DigestFinal_ex(ctx.get(), reinit.data(), &out_len), 1);
    EXPECT_EQ(reinit, expected);
  }
}

}  // namespace
