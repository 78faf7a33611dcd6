// Every whole-byte known answer in test/data/lsh/, through every implementation this CPU can run,
// one-shot and streamed; plus the published answers and IVs of docs/primitives.md "LSH (KS X 3262)" / test/data/SOURCES.md.
#include <gtest/gtest.h>

#include <map>

#include "hashes/lsh/lsh256.h"
#include "hashes/lsh/lsh512.h"
#include "hashes/lsh/lsh_params.h"
#include "test/unit/hashes/lsh/lsh_test_support.h"

namespace klms::test::lsh {
namespace {

using hashes::LshIsa;

class LshKnownAnswers : public ::testing::TestWithParam<LshIsa> {
 protected:
  void SetUp() override {
    if (!hashes::lsh_isa_supported(GetParam())) GTEST_SKIP() << "CPU lacks " << hashes::lsh_isa_name(GetParam());
  }
};

TEST(LshKnownAnswerFiles, ParseEveryFile) {
  std::map<std::string, int> per_variant;
  for (const KnownAnswer& ka : known_answers()) {
    ++per_variant[ka.variant];
    ASSERT_EQ(ka.digest.size(), output_bytes(ka.variant)) << ka.source;
  }
  // 147 Crypto++ entries per variant, 133 KCMVP, 6 whole-byte KISA, 16 for LSH-512-224.
  EXPECT_EQ(per_variant["LSH-256-224"], 147 + 133);
  EXPECT_EQ(per_variant["LSH-256-256"], 147 + 133 + 6);
  EXPECT_EQ(per_variant["LSH-512-384"], 147);
  EXPECT_EQ(per_variant["LSH-512-512"], 147 + 6);
  EXPECT_EQ(per_variant["LSH-512-256"], 147);
  EXPECT_EQ(per_variant["LSH-512-224"], 16);
}

TEST_P(LshKnownAnswers, OneShot) {
  const hashes::Lsh256Implementation& impl256 = *hashes::lsh256_implementation(GetParam());
  const hashes::Lsh512Implementation& impl512 = *hashes::lsh512_implementation(GetParam());
  for (const KnownAnswer& ka : known_answers()) {
    const std::size_t n = output_bytes(ka.variant);
    const Bytes got = is_lsh256(ka.variant) ? digest256(impl256, n, ka.message) : digest512(impl512, n, ka.message);
    EXPECT_EQ(to_hex(got), to_hex(ka.digest)) << ka.variant << " " << ka.source;
  }
}

TEST_P(LshKnownAnswers, StreamedInOddPieces) {
  const hashes::Lsh256Implementation& impl256 = *hashes::lsh256_implementation(GetParam());
  const hashes::Lsh512Implementation& impl512 = *hashes::lsh512_implementation(GetParam());
  for (const KnownAnswer& ka : known_answers()) {
    const std::size_t n = output_bytes(ka.variant);
    std::vector<std::size_t> splits;
    for (std::size_t at = 1, step = 1; at < ka.message.size(); step = step * 2 + 1, at += step) splits.push_back(at);
    const Bytes got =
        is_lsh256(ka.variant) ? stream256(impl256, n, ka.message, splits) : stream512(impl512, n, ka.message, splits);
    EXPECT_EQ(to_hex(got), to_hex(ka.digest)) << ka.variant << " " << ka.source;
  }
}

// The LMS path: the first 16 bytes given as the prefix, the rest as data.
TEST_P(LshKnownAnswers, PrefixPathSplitsAfterSixteenBytes) {
  const hashes::Lsh256Implementation& impl = *hashes::lsh256_implementation(GetParam());
  int checked = 0;
  for (const KnownAnswer& ka : known_answers()) {
    if (!is_lsh256(ka.variant) || ka.message.size() < 16) continue;
    const std::size_t n = output_bytes(ka.variant);
    Bytes got(n);
    impl.digest(hashes::lsh256_iv(n), ka.message.data(), 16, ka.message.data() + 16, ka.message.size() - 16, got.data(),
                n);
    EXPECT_EQ(to_hex(got), to_hex(ka.digest)) << ka.variant << " " << ka.source;
    ++checked;
  }
  EXPECT_GT(checked, 400);
}

TEST_P(LshKnownAnswers, PublishedAnswers) {
  const hashes::Lsh256Implementation& impl = *hashes::lsh256_implementation(GetParam());
  const Bytes abc = {'a', 'b', 'c'};
  EXPECT_EQ(to_hex(digest256(impl, 32, abc)), "5fbf365daea5446a7053c52b57404d77a07a5f48a1f7c1963a0898ba1b714741");
  EXPECT_EQ(to_hex(digest256(impl, 28, abc)), "f7c53ba4034e708e74fba42e55997ca5126bb7623688f85342f73732");
  EXPECT_EQ(to_hex(digest256(impl, 32, Bytes{})), "f3cd416a03818217726cb47f4e4d2881c9c29fd445c18b66fb19dea1a81007c1");
  EXPECT_EQ(to_hex(digest256(impl, 32, Bytes(55, 0))),
            "daa7b87a6e569d70f7385961f50dd01d8f65567e06be2ae4bc233f90087b2bac");
}

TEST_P(LshKnownAnswers, NamedOneShotFunctions) {
  using Fn = void (*)(const std::uint8_t*, std::size_t, std::uint8_t*) noexcept;
  const std::map<LshIsa, Fn> functions = {{LshIsa::kPortable, hashes::lsh256_256_digest_portable},
                                          {LshIsa::kSse2, hashes::lsh256_256_digest_sse2},
                                          {LshIsa::kAvx2, hashes::lsh256_256_digest_avx2},
                                          {LshIsa::kAvx2MessageLanes, hashes::lsh256_256_digest_avx2},
                                          {LshIsa::kAvx512, hashes::lsh256_256_digest_avx512}};
  const Bytes abc = {'a', 'b', 'c'};
  Bytes out(32);
  functions.at(GetParam())(abc.data(), abc.size(), out.data());
  EXPECT_EQ(to_hex(out), "5fbf365daea5446a7053c52b57404d77a07a5f48a1f7c1963a0898ba1b714741");
}

INSTANTIATE_TEST_SUITE_P(Isa, LshKnownAnswers, ::testing::ValuesIn(hashes::kAllLshIsas), isa_param_name);

TEST(LshKnownAnswers, NaiveDispatchAgrees) {
  const Bytes abc = {'a', 'b', 'c'};
  Bytes out(32);
  hashes::lsh256_digest_naive_dispatch(abc.data(), abc.size(), out.data());
  EXPECT_EQ(to_hex(out), "5fbf365daea5446a7053c52b57404d77a07a5f48a1f7c1963a0898ba1b714741");
}

// The IV prefixes docs/primitives.md "LSH (KS X 3262)" publishes, checked on the compile-time tables.
TEST(LshConstants, PublishedIvs) {
  EXPECT_EQ(hashes::lsh256_iv(32)[0], 0x46a10f1fu);
  EXPECT_EQ(hashes::lsh256_iv(32)[1], 0xfddce486u);
  EXPECT_EQ(hashes::lsh512_iv(28)[0], 0x0c401e9fe8813a55u);
  EXPECT_EQ(hashes::lsh512_iv(28)[15], 0xe00d2cd88b4b6c6au);
  // Each variant has its own IV (LSH-256-224 is not a truncated LSH-256-256).
  EXPECT_NE(hashes::lsh256_iv(28)[0], hashes::lsh256_iv(32)[0]);
  EXPECT_NE(hashes::lsh512_iv(48)[0], hashes::lsh512_iv(64)[0]);
  EXPECT_NE(hashes::lsh512_iv(32)[0], hashes::lsh512_iv(28)[0]);
}

// The step-constant recurrence, recomputed here independently of lsh_params.h.
TEST(LshConstants, StepConstantsFollowTheRecurrence) {
  auto rotl32 = [](std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  auto rotl64 = [](std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  const auto& sc256 = hashes::lsh::kStepConstants<std::uint32_t>;
  const auto& sc512 = hashes::lsh::kStepConstants<std::uint64_t>;
  ASSERT_EQ(sc256.size(), 26u);
  ASSERT_EQ(sc512.size(), 28u);
  EXPECT_EQ(sc256[0][0], 0x917caf90u);
  EXPECT_EQ(sc256[0][7], 0x2eeb2642u);
  EXPECT_EQ(sc512[0][0], 0x97884283c938982au);
  EXPECT_EQ(sc512[0][7], 0xd76d15eed9fdf5feu);
  for (std::size_t j = 1; j < sc256.size(); ++j) {
    for (int l = 0; l < 8; ++l) EXPECT_EQ(sc256[j][l], sc256[j - 1][l] + rotl32(sc256[j - 1][l], 8));
  }
  for (std::size_t j = 1; j < sc512.size(); ++j) {
    for (int l = 0; l < 8; ++l) EXPECT_EQ(sc512[j][l], sc512[j - 1][l] + rotl64(sc512[j - 1][l], 8));
  }
}

}  // namespace
}  // namespace klms::test::lsh
