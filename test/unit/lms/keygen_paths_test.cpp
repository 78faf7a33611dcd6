// Key generation runs its LM-OTS chains through Backend::chain_steps where the backend has one
// (sha256-hw on AVX-512 lanes) and step by step through hash_many elsewhere (lms/lmots.cpp). From
// the same SEED and I both must give the same key: the public key of sha256-hw equals that of
// sha256-portable (which has no chain_steps) for every W and n, at heights whose leaf batches are
// whole (h = 5, 10: 32 and 1024 leaves) and two-leaf subtrees (h = 5 builds units of 2 leaves, so
// 2p chains: full groups of 16 and leftovers). The known answers of keygen_vectors_test.cpp (RFC
// 8554, RFC 9858, ACVP) check the sha256-hw path against published keys.
#include <gtest/gtest.h>

#include <random>

#include "hashes/backend.h"
#include "test/unit/lms/lms_test_util.h"

namespace klms::lms {
namespace {

using test::Bytes;

struct Case {
  unsigned n, w, h;
};

class KeygenPaths : public ::testing::TestWithParam<Case> {};

TEST_P(KeygenPaths, ChainStepsAndStepByStepGiveOneKey) {
  const Case& c = GetParam();
  const hashes::Backend* hw = hashes::find_backend("sha256-hw");
  const hashes::Backend* portable = hashes::find_backend("sha256-portable");
  ASSERT_NE(portable, nullptr);
  if (hw == nullptr) GTEST_SKIP() << "no SHA-NI on this CPU";
  if (hw->chain_steps == nullptr) {
    GTEST_SKIP() << "sha256-hw has no chain_steps on this CPU (" << hw->implementation << ")";
  }
  ASSERT_EQ(portable->chain_steps, nullptr);
  const std::vector<LevelParams> levels = {{lms_for(hw->family, c.n, c.h), ots_for(hw->family, c.n, c.w)}};
  ASSERT_NE(levels[0].lms, nullptr);
  ASSERT_NE(levels[0].ots, nullptr);
  std::mt19937_64 rng(c.n * 100 + c.w * 10 + c.h);
  Bytes seed(c.n), id(16);
  for (auto* v : {&seed, &id}) {
    for (auto& byte : *v) byte = static_cast<std::uint8_t>(rng());
  }
  test::TempDir dir;
  const auto with_lanes = test::generate_seeded(dir, levels, seed, id, hw, "lanes.state");
  const auto step_by_step = test::generate_seeded(dir, levels, seed, id, portable, "portable.state");
  ASSERT_EQ(with_lanes.public_key.size(), 28u + c.n);  // u32 L, the two types, I, T[1]
  EXPECT_EQ(test::to_hex(with_lanes.public_key), test::to_hex(step_by_step.public_key));
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (unsigned n : {32u, 24u}) {
    for (unsigned w : {1u, 2u, 4u, 8u}) out.push_back({n, w, 5});
    out.push_back({n, 4, 10});
  }
  return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& c) {
  std::string name = "N";  // (appended, not "N" + ...: GCC 12 warns falsely of -Wrestrict there)
  name += std::to_string(c.param.n) + "_W" + std::to_string(c.param.w) + "_H" + std::to_string(c.param.h);
  return name;
}

INSTANTIATE_TEST_SUITE_P(Sha256, KeygenPaths, ::testing::ValuesIn(cases()), case_name);

}  // namespace
}  // namespace klms::lms
