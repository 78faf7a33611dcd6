// Backend::chain_steps (the LM-OTS chains of key generation in the AVX-512 lanes, sha256_lanes.h)
// against OpenSSL's SHA256 one step at a time: for t = from .. to-1, byte 6 = t, then bytes 7..38 =
// SHA256(I || the first rest_len bytes). Both chain lengths (n = 32: 39, n = 24: 31), every count
// 1..40 (full groups of 16 and every leftover), 67 and 1072 (one key-generation batch of W4 leaves),
// several step ranges (W4's 0..15, W8's 0..255, a middle range, a single step, none), chains packed
// exactly (stride 39, in one exact-size heap buffer: ASan sees any over-read or over-write) and with
// spare bytes (stride 48: those must stay as they were).
#include <memory>

#include "hashes/cpu_features.h"
#include "hashes/sha2/sha256_lanes.h"
#include "test/unit/hashes/sha2/sha256_test_helpers.h"

namespace klms::test::sha {
namespace {

using ChainSteps = void (*)(const hashes::PrefixState&, std::uint8_t*, std::size_t, std::size_t, std::size_t,
                            unsigned, unsigned) noexcept;

struct Range {
  unsigned from, to;
};
const Range kRanges[] = {{0, 15}, {0, 255}, {5, 9}, {14, 15}, {3, 3}};

// The expected buffers: every step with OpenSSL.
Bytes reference(const Bytes& identifier, Bytes buffers, std::size_t stride, std::size_t count, std::size_t rest_len,
                Range r) {
  for (std::size_t c = 0; c < count; ++c) {
    std::uint8_t* buf = buffers.data() + c * stride;
    for (unsigned t = r.from; t < r.to; ++t) {
      buf[6] = static_cast<std::uint8_t>(t);
      const Digest d = openssl_sha256(concat(identifier, Bytes(buf, buf + rest_len)));
      std::copy(d.begin(), d.end(), buf + 7);
    }
  }
  return buffers;
}

void check(ChainSteps steps, const hashes::Backend& prefix_backend, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> counts;
  for (std::size_t i = 1; i <= 40; ++i) counts.push_back(i);
  counts.push_back(67);
  counts.push_back(1072);
  for (std::size_t rest_len : {std::size_t{39}, std::size_t{31}}) {
    for (std::size_t stride : {std::size_t{39}, std::size_t{48}}) {
      for (std::size_t count : counts) {
        for (const Range& r : kRanges) {
          if (count == 1072 && r.to - r.from > 15) continue;  // (time)
          const Bytes identifier = random_bytes(rng, 16);
          hashes::PrefixState prefix;
          prefix_backend.init_prefix(prefix, identifier.data());
          const Bytes initial = random_bytes(rng, count * stride);
          const Bytes expected = reference(identifier, initial, stride, count, rest_len, r);
          std::unique_ptr<std::uint8_t[]> buffers(new std::uint8_t[count * stride]);
          std::copy(initial.begin(), initial.end(), buffers.get());
          steps(prefix, buffers.get(), stride, count, rest_len, r.from, r.to);
          const Bytes got(buffers.get(), buffers.get() + count * stride);
          ASSERT_EQ(to_hex(got), to_hex(expected))
              << "rest " << rest_len << " stride " << stride << " count " << count << " steps " << r.from << ".."
              << r.to;
        }
      }
    }
  }
}

TEST(ChainSteps, Avx512LanesAgreeWithOpenSsl) {
  const hashes::CpuFeatures& f = hashes::cpu_features();
  if (!(f.avx512f && f.avx512vl && f.sha_ni)) GTEST_SKIP() << "no AVX-512 F+VL and SHA-NI on this CPU";
  check(hashes::sha256::lanes::chain_steps_avx512, sha256_backend(Sha256Kind::kPortable), 1);
}

TEST(ChainSteps, OnlyTheLanesBackendHasOne) {
  EXPECT_EQ(sha256_backend(Sha256Kind::kPortable).chain_steps, nullptr);
  if (hashes::sha256_hw_supported()) {
    const Backend& hw = sha256_backend(Sha256Kind::kHw);
    EXPECT_EQ(hw.chain_steps != nullptr, hw.lanes == hashes::sha256::lanes::kAvx512Lanes) << hw.implementation;
  }
}

}  // namespace
}  // namespace klms::test::sha
