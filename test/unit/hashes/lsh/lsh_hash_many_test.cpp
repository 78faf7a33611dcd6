// hash_many against one message at a time, for every implementation: counts 1..33 and 67 (full batches,
// padded remainders, one-by-one remainders), one- and multi-block lengths, outputs aliasing inputs.
#include <gtest/gtest.h>

#include <cstring>

#include "hashes/lsh/lsh256.h"
#include "test/unit/hashes/lsh/lsh_test_support.h"

namespace klms::test::lsh {
namespace {

using hashes::LshIsa;

constexpr std::size_t kRestLengths[] = {0, 22, 31, 38, 39, 70, 111, 112, 200, 2150};

class LshHashMany : public ::testing::TestWithParam<LshIsa> {
 protected:
  void SetUp() override {
    if (!hashes::lsh_isa_supported(GetParam())) GTEST_SKIP() << "CPU lacks " << hashes::lsh_isa_name(GetParam());
    impl_ = hashes::lsh256_implementation(GetParam());
  }
  // LSH-256-256(prefix || rest) by the portable code, over the concatenation.
  static Bytes expected(const Bytes& prefix, const std::uint8_t* rest, std::size_t len) {
    Bytes whole(prefix);
    whole.insert(whole.end(), rest, rest + len);
    return digest256(hashes::lsh256_portable(), 32, whole);
  }
  const hashes::Lsh256Implementation* impl_ = nullptr;
};

TEST_P(LshHashMany, MatchesOneAtATime) {
  const Bytes prefix = pseudo_random_bytes(16, 1);
  std::vector<std::size_t> counts;
  for (std::size_t c = 1; c <= 33; ++c) counts.push_back(c);  // every leftover of 4, 8 and 16 lanes, twice
  counts.push_back(67);
  for (std::size_t rest_len : kRestLengths) {
    for (std::size_t count : counts) {
      std::vector<Bytes> rests, outs(count, Bytes(32));
      std::vector<const std::uint8_t*> rest_ptrs;
      std::vector<std::uint8_t*> out_ptrs;
      for (std::size_t k = 0; k < count; ++k) rests.push_back(pseudo_random_bytes(rest_len, 1000 * rest_len + k));
      for (std::size_t k = 0; k < count; ++k) {
        rest_ptrs.push_back(rests[k].data());
        out_ptrs.push_back(outs[k].data());
      }
      impl_->hash_many(prefix.data(), rest_ptrs.data(), rest_len, out_ptrs.data(), count);
      for (std::size_t k = 0; k < count; ++k) {
        ASSERT_EQ(to_hex(outs[k]), to_hex(expected(prefix, rests[k].data(), rest_len)))
            << "rest_len " << rest_len << " count " << count << " message " << k;
      }
    }
  }
}

// Each output overwrites its own input (the LM-OTS chain step hashes in place).
TEST_P(LshHashMany, OutputsMayAliasInputs) {
  const Bytes prefix = pseudo_random_bytes(16, 2);
  for (std::size_t rest_len : {32u, 39u, 200u}) {
    for (std::size_t count : {1u, 3u, 8u, 16u, 19u}) {
      std::vector<Bytes> buffers, want;
      for (std::size_t k = 0; k < count; ++k) {
        buffers.push_back(pseudo_random_bytes(rest_len, 77 * k + rest_len));
        want.push_back(expected(prefix, buffers[k].data(), rest_len));
      }
      std::vector<const std::uint8_t*> in;
      std::vector<std::uint8_t*> out;
      for (Bytes& b : buffers) {
        in.push_back(b.data());
        out.push_back(b.data());
      }
      impl_->hash_many(prefix.data(), in.data(), rest_len, out.data(), count);
      for (std::size_t k = 0; k < count; ++k) {
        EXPECT_EQ(to_hex(buffers[k].data(), 32), to_hex(want[k])) << "rest_len " << rest_len << " count " << count;
      }
    }
  }
}

// Inputs at odd addresses, and outputs with neighbours that must stay untouched.
TEST_P(LshHashMany, UnalignedBuffersAndExactOutputSize) {
  const Bytes prefix = pseudo_random_bytes(16, 3);
  const std::size_t count = 17, rest_len = 39;
  Bytes arena = pseudo_random_bytes(count * (rest_len + 3) + 1, 5);
  Bytes out_arena(count * 33 + 1, 0xee);
  std::vector<const std::uint8_t*> in;
  std::vector<std::uint8_t*> out;
  for (std::size_t k = 0; k < count; ++k) {
    in.push_back(arena.data() + 1 + k * (rest_len + 3));
    out.push_back(out_arena.data() + 1 + k * 33);
  }
  impl_->hash_many(prefix.data(), in.data(), rest_len, out.data(), count);
  for (std::size_t k = 0; k < count; ++k) {
    EXPECT_EQ(to_hex(out[k], 32), to_hex(expected(prefix, in[k], rest_len)));
    EXPECT_EQ(out[k][32], 0xee) << "wrote past 32 bytes";
  }
  EXPECT_EQ(out_arena[0], 0xee);
}

TEST_P(LshHashMany, ZeroCountTouchesNothing) {
  const Bytes prefix(16, 0);
  impl_->hash_many(prefix.data(), nullptr, 39, nullptr, 0);
  SUCCEED();
}

INSTANTIATE_TEST_SUITE_P(Isa, LshHashMany, ::testing::ValuesIn(hashes::kAllLshIsas), isa_param_name);

}  // namespace
}  // namespace klms::test::lsh
