// The fused XMSS chain kernels (hashes/sha2/sha256_xmss_chains.h) against the lock-step path
// (Hasher::chains_with(nullptr), every step a chain_steps call of PRF, PRF and F through the
// backend's hash_many): every kernel this CPU runs, every lane count from 1 to 3 groups of 16 and a
// tail, every chain start and length at w = 16, long chains at w = 256, chains of several lengths in
// one call (the kernels sort them), XMSS^MT tree addresses, and the n = 24 and other-hash sets
// (which never take a kernel) unchanged.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "hashes/backend.h"
#include "hashes/sha2/sha256_xmss_chains.h"
#include "xmss/hasher.h"
#include "xmss/params.h"

namespace klms::xmss {
namespace {

struct ChainSet {
  std::vector<Address> addresses;
  std::vector<std::uint8_t> start, end;
  std::vector<std::uint8_t> values;  // 32-byte slots
};

ChainSet random_chains(std::mt19937& rng, const TreeAddress& tree, std::size_t count, unsigned top) {
  ChainSet c;
  c.values.resize(count * kSlot);
  for (auto& b : c.values) b = static_cast<std::uint8_t>(rng());
  for (std::size_t k = 0; k < count; ++k) {
    Address a = Address::ots(tree, static_cast<std::uint32_t>(rng() % 1024));
    a.set_chain(static_cast<std::uint32_t>(rng() % 67));
    c.addresses.push_back(a);
    const auto s = static_cast<std::uint8_t>(rng() % (top + 1));
    const auto e = static_cast<std::uint8_t>(s + rng() % (top - s + 1));
    c.start.push_back(s);
    c.end.push_back(e);
  }
  return c;
}

// values after running `c` with `kernel` (null: the lock-step path).
std::vector<std::uint8_t> run(const Hasher& hasher, hashes::sha256::XmssChainsFn kernel, const ChainSet& c,
                              bool whole) {
  std::vector<std::uint8_t> values = c.values;
  std::vector<std::uint8_t*> ptrs;
  for (std::size_t k = 0; k < c.addresses.size(); ++k) ptrs.push_back(values.data() + k * kSlot);
  hasher.chains_with(kernel, c.addresses.data(), ptrs.data(), whole ? nullptr : c.start.data(),
                     whole ? nullptr : c.end.data(), c.addresses.size());
  return values;
}

const hashes::Backend& portable() { return *hashes::backend(hashes::BackendId::kSha256Portable); }

TEST(XmssChainKernels, EveryKernelAndLaneCountAgainstLockStep) {
  const auto kernels = hashes::sha256::xmss_chain_kernels();
  ASSERT_GE(kernels.size(), 1u);
  const Params& p = *find_params("XMSS-SHA2_10_256");
  std::mt19937 rng(1);
  std::uint8_t seed[32];
  for (auto& b : seed) b = static_cast<std::uint8_t>(rng());
  const Hasher hasher(p, portable(), seed);
  unsigned compared = 0;
  for (std::size_t count = 1; count <= 3 * 16 + 5; ++count) {
    for (bool whole : {true, false}) {
      const ChainSet c = random_chains(rng, TreeAddress{}, count, p.w() - 1);
      const auto expected = run(hasher, nullptr, c, whole);
      for (const auto& kernel : kernels) {
        EXPECT_EQ(run(hasher, kernel.run, c, whole), expected) << kernel.name << " count " << count << " whole " << whole;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 2 * 53 * kernels.size());
}

// Every (start, end) pair of w = 16 in one call (136 chains of 16 lengths, sorted by the kernel),
// then each pair alone, in an XMSS^MT tree (layer and tree address words set).
TEST(XmssChainKernels, EveryStartAndLengthInAHypertreeTree) {
  const Params& p = *find_params("XMSSMT-SHA2_60/12_256");
  std::mt19937 rng(2);
  std::uint8_t seed[32];
  for (auto& b : seed) b = static_cast<std::uint8_t>(rng());
  const Hasher hasher(p, portable(), seed);
  const TreeAddress tree{7, 0x0123456789ULL};
  ChainSet all = random_chains(rng, tree, 136, 15);
  std::size_t k = 0;
  for (unsigned s = 0; s <= 15; ++s) {
    for (unsigned e = s; e <= 15; ++e, ++k) {
      all.start[k] = static_cast<std::uint8_t>(s);
      all.end[k] = static_cast<std::uint8_t>(e);
    }
  }
  ASSERT_EQ(k, 136u);
  const auto expected = run(hasher, nullptr, all, false);
  for (const auto& kernel : hashes::sha256::xmss_chain_kernels()) {
    EXPECT_EQ(run(hasher, kernel.run, all, false), expected) << kernel.name;
    for (std::size_t one = 0; one < 136; ++one) {
      ChainSet c;
      c.addresses = {all.addresses[one]};
      c.start = {all.start[one]};
      c.end = {all.end[one]};
      c.values.assign(all.values.begin() + static_cast<std::ptrdiff_t>(one * kSlot),
                      all.values.begin() + static_cast<std::ptrdiff_t>((one + 1) * kSlot));
      EXPECT_EQ(run(hasher, kernel.run, c, false),
                std::vector<std::uint8_t>(expected.begin() + static_cast<std::ptrdiff_t>(one * kSlot),
                                          expected.begin() + static_cast<std::ptrdiff_t>((one + 1) * kSlot)))
          << kernel.name << " start " << unsigned{c.start[0]} << " end " << unsigned{c.end[0]};
    }
  }
}

// w = 256 (chains of up to 255 steps) and w = 4, and chains of two trees in one call (the Hasher
// makes one kernel call per tree).
TEST(XmssChainKernels, OtherWinternitzAndMixedTrees) {
  std::mt19937 rng(3);
  std::uint8_t seed[32];
  for (auto& b : seed) b = static_cast<std::uint8_t>(rng());
  for (unsigned log_w : {2u, 8u}) {
    const auto p = params_for(HashFamily::kSha256, 32, 4, log_w);
    ASSERT_TRUE(p.ok());
    const Hasher hasher(*p, portable(), seed);
    ChainSet c = random_chains(rng, TreeAddress{1, 2}, 21, p->w() - 1);
    const ChainSet other = random_chains(rng, TreeAddress{3, 4}, 12, p->w() - 1);
    c.addresses.insert(c.addresses.end(), other.addresses.begin(), other.addresses.end());
    c.start.insert(c.start.end(), other.start.begin(), other.start.end());
    c.end.insert(c.end.end(), other.end.begin(), other.end.end());
    c.values.insert(c.values.end(), other.values.begin(), other.values.end());
    for (bool whole : {true, false}) {
      const auto expected = run(hasher, nullptr, c, whole);
      for (const auto& kernel : hashes::sha256::xmss_chain_kernels()) {
        EXPECT_EQ(run(hasher, kernel.run, c, whole), expected) << kernel.name << " w " << p->w();
      }
    }
  }
}

// sha256-hw takes the kernel this CPU's path table chose; the portable backend, n = 24 and the other
// hashes step in lock step.
TEST(XmssChainKernels, WhoTakesTheFusedPath) {
  const std::uint8_t seed[32] = {};
  if (const hashes::Backend* hw = hashes::backend(hashes::BackendId::kSha256Hw)) {
    EXPECT_TRUE(Hasher(*find_params("XMSS-SHA2_10_256"), *hw, seed).fused_chains());
    EXPECT_TRUE(Hasher(*find_params("XMSSMT-SHA2_40/8_256"), *hw, seed).fused_chains());
    EXPECT_FALSE(Hasher(*find_params("XMSS-SHA2_10_192"), *hw, seed).fused_chains());
  }
  EXPECT_FALSE(Hasher(*find_params("XMSS-SHA2_10_256"), portable(), seed).fused_chains());
  EXPECT_FALSE(Hasher(*find_params("XMSS-SHAKE256_10_256"), hashes::fastest_backend(HashFamily::kShake256), seed)
                   .fused_chains());
  EXPECT_FALSE(Hasher(*find_params("K-XMSS-LSH256_10_256"), hashes::fastest_backend(HashFamily::kLsh256), seed)
                   .fused_chains());
}

}  // namespace
}  // namespace klms::xmss
