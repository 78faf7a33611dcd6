// The study's counting backend (bench/study/counting_backend.h) counts every hash the engine asks
// of the backend it wraps, whichever entry the engine calls. sha256-hw steps the LM-OTS chains of
// key generation with Backend::chain_steps (on AVX-512 lanes), sha256-portable with hash_many: the
// same key generation must count the same hashes on both, the number RFC 8554 gives for it.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bench/study/counting_backend.h"
#include "hashes/backend.h"
#include "lms/merkle_tree.h"
#include "lms/params.h"
#include "lms/tree_key.h"

namespace klms::bench {
namespace {

std::uint64_t counted_messages(std::size_t input_bytes) {
  std::uint64_t total = 0;
  for (const LengthCount& c : hash_counts()) {
    if (input_bytes == 0 || c.input_bytes == input_bytes) total += c.messages;
  }
  return total;
}

const hashes::Backend* sha256_hw_with_chain_steps() {
  const hashes::Backend* hw = hashes::find_backend("sha256-hw");
  return hw != nullptr && hw->chain_steps != nullptr ? hw : nullptr;
}

TEST(CountingBackend, CountsEveryStepOfChainSteps) {
  const hashes::Backend* hw = sha256_hw_with_chain_steps();
  if (hw == nullptr) GTEST_SKIP() << "sha256-hw has no chain_steps on this CPU";
  constexpr std::size_t kStride = 48, kChains = 5, kRest = 7 + 32;
  constexpr unsigned kFrom = 0, kTo = 15;
  const std::uint8_t id[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  std::vector<std::uint8_t> counted(kStride * kChains), direct(kStride * kChains);
  for (std::size_t i = 0; i < counted.size(); ++i) counted[i] = direct[i] = static_cast<std::uint8_t>(i * 31 + 7);

  hashes::PrefixState prefix;
  hw->init_prefix(prefix, id);
  hw->chain_steps(prefix, direct.data(), kStride, kChains, kRest, kFrom, kTo);

  const hashes::Backend& counting = counting_backend(*hw);
  ASSERT_NE(counting.chain_steps, nullptr);
  reset_hash_counts();
  counting.chain_steps(prefix, counted.data(), kStride, kChains, kRest, kFrom, kTo);
  EXPECT_EQ(counted_messages(16 + kRest), kChains * (kTo - kFrom));
  EXPECT_EQ(counted, direct);  // forwarded to the real chain_steps
}

TEST(CountingBackend, NoChainStepsStaysNone) {
  const hashes::Backend* portable = hashes::find_backend("sha256-portable");
  ASSERT_NE(portable, nullptr);
  ASSERT_EQ(portable->chain_steps, nullptr);
  EXPECT_EQ(counting_backend(*portable).chain_steps, nullptr);
}

// Hashes of one LMS tree's key generation (RFC 8554 Appendix A and sections 4.3, 5.3): per leaf p
// private elements (PRF), p chains of 2^w - 1 steps, the OTS public key K and the leaf node; then
// 2^h - 1 interior nodes.
std::uint64_t rfc8554_keygen_hashes(const lms::LevelParams& p) {
  const std::uint64_t leaves = std::uint64_t{1} << p.lms->h;
  const std::uint64_t chains = p.ots->p;
  return leaves * (chains + chains * p.ots->chain_max() + 1 + 1) + (leaves - 1);
}

std::uint64_t counted_keygen(const hashes::Backend& real, const lms::LevelParams& params) {
  lms::Identifier id{};
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<std::uint8_t>(0xA0 + i);
  std::uint8_t seed[32];
  for (std::size_t i = 0; i < sizeof seed; ++i) seed[i] = static_cast<std::uint8_t>(i);
  const hashes::Backend& counting = counting_backend(real);
  reset_hash_counts();
  const lms::TreeKey key = lms::make_tree_key(params, id, seed, &counting);
  lms::BuildOptions build;
  build.threads = 1;
  auto tree = lms::build_tree(key, build);
  EXPECT_TRUE(tree.ok());
  return counted_messages(0);
}

TEST(CountingBackend, KeygenCountsTheSameOnEverySha256Backend) {
  const hashes::Backend* hw = sha256_hw_with_chain_steps();
  if (hw == nullptr) GTEST_SKIP() << "sha256-hw has no chain_steps on this CPU";
  const hashes::Backend* portable = hashes::find_backend("sha256-portable");
  ASSERT_NE(portable, nullptr);
  for (unsigned w : {1u, 4u}) {
    const lms::LevelParams params{lms::lms_for(hashes::HashFamily::kSha256, 32, 5),
                                  lms::ots_for(hashes::HashFamily::kSha256, 32, w)};
    ASSERT_NE(params.lms, nullptr);
    ASSERT_NE(params.ots, nullptr);
    EXPECT_EQ(counted_keygen(*portable, params), rfc8554_keygen_hashes(params)) << "sha256-portable, w " << w;
    EXPECT_EQ(counted_keygen(*hw, params), rfc8554_keygen_hashes(params)) << "sha256-hw, w " << w;
  }
}

}  // namespace
}  // namespace klms::bench
