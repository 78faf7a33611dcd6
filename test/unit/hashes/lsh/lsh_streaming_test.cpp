// Streaming equals one-shot at every split point, for every implementation and every variant.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "hashes/lsh/lsh256.h"
#include "hashes/lsh/lsh512.h"
#include "test/unit/hashes/lsh/lsh_test_support.h"

namespace klms::test::lsh {
namespace {

using hashes::LshIsa;

static_assert(std::is_trivially_copyable_v<hashes::Lsh256Context>);
static_assert(std::is_trivially_copyable_v<hashes::Lsh512Context>);
static_assert(sizeof(hashes::Lsh256Context) <= 1024 && sizeof(hashes::Lsh512Context) <= 1024);
// The only length LSH keeps is the buffer fill; it is 64-bit so no size_t is ever narrowed to 32 bits.
static_assert(sizeof(hashes::Lsh256Context::buffered) == 8 && sizeof(hashes::Lsh512Context::buffered) == 8);

class LshStreaming : public ::testing::TestWithParam<LshIsa> {
 protected:
  void SetUp() override {
    if (!hashes::lsh_isa_supported(GetParam())) GTEST_SKIP() << "CPU lacks " << hashes::lsh_isa_name(GetParam());
    impl256_ = hashes::lsh256_implementation(GetParam());
    impl512_ = hashes::lsh512_implementation(GetParam());
  }
  const hashes::Lsh256Implementation* impl256_ = nullptr;
  const hashes::Lsh512Implementation* impl512_ = nullptr;
};

TEST_P(LshStreaming, EveryTwoWaySplitOfLengthsUpTo300) {
  for (std::size_t len = 0; len <= 300; ++len) {
    const Bytes message = pseudo_random_bytes(len, len);
    const Bytes expect256 = digest256(hashes::lsh256_portable(), 32, message);
    const Bytes expect512 = digest512(hashes::lsh512_portable(), 64, message);
    for (std::size_t split = 0; split <= len; ++split) {
      ASSERT_EQ(stream256(*impl256_, 32, message, {split}), expect256) << "len " << len << " split " << split;
      ASSERT_EQ(stream512(*impl512_, 64, message, {split}), expect512) << "len " << len << " split " << split;
    }
  }
}

TEST_P(LshStreaming, ThreeWaySplits) {
  for (std::size_t len : {0u, 1u, 127u, 128u, 129u, 255u, 256u, 257u, 300u, 513u}) {
    const Bytes message = pseudo_random_bytes(len, 1000 + len);
    const Bytes expect256 = digest256(hashes::lsh256_portable(), 28, message);
    const Bytes expect512 = digest512(hashes::lsh512_portable(), 48, message);
    for (std::size_t a = 0; a <= len; a += (len > 200 ? 7 : 1)) {
      for (std::size_t b = a; b <= len; b += (len > 200 ? 5 : 1)) {
        ASSERT_EQ(stream256(*impl256_, 28, message, {a, b}), expect256) << len << ": " << a << "," << b;
        ASSERT_EQ(stream512(*impl512_, 48, message, {a, b}), expect512) << len << ": " << a << "," << b;
      }
    }
  }
}

TEST_P(LshStreaming, ByteAtATime) {
  const Bytes message = pseudo_random_bytes(1100, 7);
  std::vector<std::size_t> every_byte;
  for (std::size_t i = 1; i < message.size(); ++i) every_byte.push_back(i);
  EXPECT_EQ(stream256(*impl256_, 32, message, every_byte), digest256(hashes::lsh256_portable(), 32, message));
  EXPECT_EQ(stream512(*impl512_, 28, message, every_byte), digest512(hashes::lsh512_portable(), 28, message));
}

// dupctx is a memcpy: a copied context continues independently of the original.
TEST_P(LshStreaming, CopiedContextContinuesIndependently) {
  const Bytes message = pseudo_random_bytes(400, 9);
  hashes::Lsh256Context original;
  hashes::lsh256_init(original, 32);
  impl256_->update(original, message.data(), 150);
  hashes::Lsh256Context copy;
  std::memcpy(&copy, &original, sizeof(copy));
  impl256_->update(original, message.data() + 150, 250);
  impl256_->update(copy, message.data() + 150, 100);  // a different continuation
  Bytes a(32), b(32);
  impl256_->final(original, a.data());
  impl256_->final(copy, b.data());
  EXPECT_EQ(a, digest256(hashes::lsh256_portable(), 32, message));
  EXPECT_EQ(b, digest256(hashes::lsh256_portable(), 32, Bytes(message.begin(), message.begin() + 250)));
}

TEST_P(LshStreaming, NullDataWithZeroLength) {
  hashes::Lsh256Context ctx;
  hashes::lsh256_init(ctx, 32);
  impl256_->update(ctx, nullptr, 0);
  Bytes out(32);
  impl256_->final(ctx, out.data());
  EXPECT_EQ(to_hex(out), "f3cd416a03818217726cb47f4e4d2881c9c29fd445c18b66fb19dea1a81007c1");
}

INSTANTIATE_TEST_SUITE_P(Isa, LshStreaming, ::testing::ValuesIn(hashes::kAllLshIsas), isa_param_name);

// More than 4 GiB through size_t lengths: the one-shot call gets the whole length at once, the
// stream gets it in small pieces, so a length cut to 32 bits anywhere would make them differ.
// Zero pages from calloc cost no memory. Takes several seconds: run with
// --gtest_also_run_disabled_tests --gtest_filter='*MoreThanFourGiB*'.
TEST(LshLongInput, DISABLED_MoreThanFourGiB) {
  const std::size_t len = (std::size_t{1} << 32) + 77;
  std::uint8_t* zeros = static_cast<std::uint8_t*>(std::calloc(len, 1));
  ASSERT_NE(zeros, nullptr);
  const hashes::Lsh256Implementation& impl = hashes::lsh256_fastest();
  std::uint8_t one_shot[32], streamed[32];
  impl.digest(hashes::lsh256_iv(32), nullptr, 0, zeros, len, one_shot, 32);
  hashes::Lsh256Context ctx;
  hashes::lsh256_init(ctx, 32);
  for (std::size_t at = 0; at < len;) {
    const std::size_t piece = std::min<std::size_t>(len - at, (1u << 20) + 3);
    impl.update(ctx, zeros + at, piece);
    at += piece;
  }
  impl.final(ctx, streamed);
  std::uint8_t cut[32];  // what a length cut to 32 bits would hash
  impl.digest(hashes::lsh256_iv(32), nullptr, 0, zeros, len & 0xffffffffu, cut, 32);
  std::free(zeros);
  EXPECT_EQ(to_hex(one_shot, 32), to_hex(streamed, 32));
  EXPECT_NE(to_hex(one_shot, 32), to_hex(cut, 32));
}

}  // namespace
}  // namespace klms::test::lsh
