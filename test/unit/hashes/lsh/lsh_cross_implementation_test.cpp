// Every vectorized implementation agrees with the portable one on random inputs of every length
// 0…1000, with and without the 16-byte prefix, for every output length.
#include <gtest/gtest.h>

#include "hashes/lsh/lsh256.h"
#include "hashes/lsh/lsh512.h"
#include "test/unit/hashes/lsh/lsh_test_support.h"

namespace klms::test::lsh {
namespace {

using hashes::LshIsa;

class LshCrossImplementation : public ::testing::TestWithParam<LshIsa> {
 protected:
  void SetUp() override {
    if (!hashes::lsh_isa_supported(GetParam())) GTEST_SKIP() << "CPU lacks " << hashes::lsh_isa_name(GetParam());
  }
};

TEST_P(LshCrossImplementation, Lsh256EveryLengthUpTo1000) {
  const hashes::Lsh256Implementation& impl = *hashes::lsh256_implementation(GetParam());
  const hashes::Lsh256Implementation& ref = hashes::lsh256_portable();
  const Bytes prefix = pseudo_random_bytes(16, 4242);
  for (std::size_t len = 0; len <= 1000; ++len) {
    const Bytes message = pseudo_random_bytes(len, 31 * len + 5);
    for (std::size_t out_bytes : {32u, 28u}) {
      for (std::size_t prefix_len : {0u, 16u}) {
        Bytes got(out_bytes), want(out_bytes);
        impl.digest(hashes::lsh256_iv(out_bytes), prefix.data(), prefix_len, message.data(), len, got.data(),
                    out_bytes);
        ref.digest(hashes::lsh256_iv(out_bytes), prefix.data(), prefix_len, message.data(), len, want.data(),
                   out_bytes);
        ASSERT_EQ(to_hex(got), to_hex(want)) << "len " << len << " out " << out_bytes << " prefix " << prefix_len;
      }
    }
  }
}

TEST_P(LshCrossImplementation, Lsh512EveryLengthUpTo1000) {
  const hashes::Lsh512Implementation& impl = *hashes::lsh512_implementation(GetParam());
  for (std::size_t len = 0; len <= 1000; ++len) {
    const Bytes message = pseudo_random_bytes(len, 17 * len + 3);
    for (std::size_t out_bytes : {64u, 48u, 32u, 28u}) {
      ASSERT_EQ(to_hex(digest512(impl, out_bytes, message)),
                to_hex(digest512(hashes::lsh512_portable(), out_bytes, message)))
          << "len " << len << " out " << out_bytes;
    }
  }
}

// The compression function alone, on many blocks at once, from an arbitrary chaining value.
TEST_P(LshCrossImplementation, CompressMatchesPortable) {
  const hashes::Lsh256Implementation& impl256 = *hashes::lsh256_implementation(GetParam());
  const hashes::Lsh512Implementation& impl512 = *hashes::lsh512_implementation(GetParam());
  const Bytes blocks = pseudo_random_bytes(256 * 7 + 1, 99);  // +1: unaligned start below
  for (std::size_t count = 0; count <= 7; ++count) {
    std::uint32_t a[16], b[16];
    std::uint64_t c[16], d[16];
    for (int i = 0; i < 16; ++i) {
      a[i] = b[i] = 0x01020304u * static_cast<std::uint32_t>(i + 1);
      c[i] = d[i] = 0x0102030405060708u * static_cast<std::uint64_t>(i + 1);
    }
    impl256.compress(a, blocks.data() + 1, count);
    hashes::lsh256_portable().compress(b, blocks.data() + 1, count);
    impl512.compress(c, blocks.data() + 1, count);
    hashes::lsh512_portable().compress(d, blocks.data() + 1, count);
    EXPECT_EQ(to_hex(reinterpret_cast<const std::uint8_t*>(a), 64),
              to_hex(reinterpret_cast<const std::uint8_t*>(b), 64));
    EXPECT_EQ(to_hex(reinterpret_cast<const std::uint8_t*>(c), 128),
              to_hex(reinterpret_cast<const std::uint8_t*>(d), 128));
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, LshCrossImplementation, ::testing::ValuesIn(hashes::kAllLshIsas), isa_param_name);

}  // namespace
}  // namespace klms::test::lsh
