// The parameter tables against docs/params.md and RFC 8554 Appendix B.
#include <gtest/gtest.h>

#include "lms/hss.h"
#include "lms/params.h"

namespace klms::lms {
namespace {

struct ExpectedOts {
  unsigned n, w, p, ls;
};

TEST(Params, OtsPAndLsFollowAppendixB) {
  // docs/params.md "Standard sets": n=32: W1 265/7, W2 133/6, W4 67/4, W8 34/0; n=24: W1 200/8, W2 101/6, W4 51/4, W8 26/0.
  const ExpectedOts expected[] = {{32, 1, 265, 7}, {32, 2, 133, 6}, {32, 4, 67, 4}, {32, 8, 34, 0},
                                  {24, 1, 200, 8}, {24, 2, 101, 6}, {24, 4, 51, 4}, {24, 8, 26, 0}};
  for (const OtsParams& o : all_ots()) {
    bool found = false;
    for (const ExpectedOts& e : expected) {
      if (e.n == o.n && e.w == o.w) {
        EXPECT_EQ(o.p, e.p) << o.name;
        EXPECT_EQ(o.ls, e.ls) << o.name;
        found = true;
      }
    }
    EXPECT_TRUE(found) << o.name;
  }
}

TEST(Params, StandardCodes) {
  EXPECT_EQ(find_lms("LMS_SHA256_M32_H5")->code, 0x05u);
  EXPECT_EQ(find_lms("LMS_SHA256_M32_H25")->code, 0x09u);
  EXPECT_EQ(find_lms("LMS_SHA256_M24_H5")->code, 0x0Au);
  EXPECT_EQ(find_lms("LMS_SHA256_M24_H25")->code, 0x0Eu);
  EXPECT_EQ(find_lms("LMS_SHAKE_M32_H5")->code, 0x0Fu);
  EXPECT_EQ(find_lms("LMS_SHAKE_M24_H25")->code, 0x18u);
  EXPECT_EQ(find_ots("LMOTS_SHA256_N32_W1")->code, 0x01u);
  EXPECT_EQ(find_ots("LMOTS_SHA256_N32_W8")->code, 0x04u);
  EXPECT_EQ(find_ots("LMOTS_SHA256_N24_W1")->code, 0x05u);
  EXPECT_EQ(find_ots("LMOTS_SHAKE_N32_W1")->code, 0x09u);
  EXPECT_EQ(find_ots("LMOTS_SHAKE_N24_W8")->code, 0x10u);
  EXPECT_EQ(all_lms().size(), 6u * 2 * 5);
  EXPECT_EQ(all_ots().size(), 6u * 2 * 4);
}

TEST(Params, KlmsCodesFromParamsMd) {
  EXPECT_EQ(find_lms("LMS_LSH256_M32_H10")->code, 0xE0000101u);
  EXPECT_EQ(find_ots("LMOTS_LSH256_N32_W4")->code, 0xE0000102u);
  EXPECT_EQ(find_lms("LMS_TDMCHAM_M32_H5")->code, 0xE0000200u);
  EXPECT_EQ(find_ots("LMOTS_TDMLEA_N24_W8")->code, 0xE0000313u);
  EXPECT_EQ(find_lms("LMS_TDMARIA_M32_H20")->code, 0xE0000403u);
  EXPECT_EQ(find_lms(0xE0000403u)->name, "LMS_TDMARIA_M32_H20");
  EXPECT_EQ(find_lms(0xE0000403u)->hash, HashFamily::kTdmAria);
}

TEST(Params, LookupIsCaseInsensitiveAndRejectsUnknown) {
  EXPECT_NE(find_lms("lms_sha256_m32_h10"), nullptr);
  EXPECT_EQ(find_lms("LMS_SHA256_M32_H11"), nullptr);
  EXPECT_EQ(find_lms(0x00u), nullptr);
  EXPECT_EQ(find_lms(0x19u), nullptr);
  EXPECT_EQ(find_ots(0x11u), nullptr);
  EXPECT_EQ(find_lms(0xE0000105u), nullptr);  // hcode 5 does not exist
  EXPECT_EQ(find_ots(0xE0000104u), nullptr);  // wcode 4 does not exist
  EXPECT_EQ(find_ots(0xE0000502u), nullptr);  // hash 5 does not exist
  EXPECT_EQ(find_lms(0xDDDDDDDDu), nullptr);
}

TEST(Params, HashTokens) {
  auto t = parse_hash_token("sha256/192");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->hash, HashFamily::kSha256);
  EXPECT_EQ(t->n, 24);
  t = parse_hash_token("TDMARIA");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->hash, HashFamily::kTdmAria);
  EXPECT_EQ(t->n, 32);
  EXPECT_FALSE(parse_hash_token("SHA512"));
  EXPECT_FALSE(parse_hash_token("/192"));
  EXPECT_EQ(hash_token_name(HashFamily::kShake256, 24), "SHAKE/192");
}

TEST(Params, MaxSignaturesSaturatesAt64Bits) {
  const LevelParams h25{find_lms("LMS_SHA256_M32_H25"), find_ots("LMOTS_SHA256_N32_W4")};
  const LevelParams h5{find_lms("LMS_SHA256_M32_H5"), find_ots("LMOTS_SHA256_N32_W4")};
  EXPECT_EQ(max_signatures(std::vector<LevelParams>{h5}), 32u);
  EXPECT_EQ(max_signatures(std::vector<LevelParams>{h25, h25}), std::uint64_t{1} << 50);
  EXPECT_EQ(max_signatures(std::vector<LevelParams>{h25, h25, h5, h5}), std::uint64_t{1} << 60);
  EXPECT_EQ(max_signatures(std::vector<LevelParams>{h25, h25, h5, h5, h5}), ~std::uint64_t{0});
  EXPECT_EQ(max_signatures(std::vector<LevelParams>(8, h25)), ~std::uint64_t{0});
}

TEST(Params, SignatureSizes) {
  const LevelParams l{find_lms("LMS_SHA256_M32_H10"), find_ots("LMOTS_SHA256_N32_W4")};
  // 4 + (4 + 32 + 67*32) + 4 + 10*32 = 2508 bytes of LMS signature, plus u32 Nspk.
  EXPECT_EQ(l.signature_bytes(), 2508u);
  EXPECT_EQ(hss_signature_bytes(std::vector<LevelParams>{l}), 2512u);
  EXPECT_EQ(hss_public_key_bytes(l), 60u);
}

}  // namespace
}  // namespace klms::lms
