// The parameters digest and the state-file policy of the stateful layer. HSS's digest must stay the
// input existing state files were bound with: checked against the digest an earlier build wrote
// into test/data/state/main-hss-l2.state (test/data/SOURCES.md), read with the state store's own
// parser. Other schemes' tagged digests never equal an HSS one and separate tag from parameters.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "lms/hss_scheme.h"
#include "lms/params.h"
#include "lms/signer.h"
#include "state/store.h"
#include "stateful/scheme.h"
#include "stateful/state_location.h"
#include "test/support/test_data.h"
#include "test/unit/lms/lms_test_util.h"

namespace klms::stateful {
namespace {

std::vector<lms::LevelParams> main_levels() {
  const lms::LevelParams level{lms::lms_for(lms::HashFamily::kSha256, 32, 5), lms::ots_for(lms::HashFamily::kSha256, 32, 4)};
  return {level, level};
}

TEST(ParamsDigest, HssKeepsTheDigestExistingStateFilesWereBoundWith) {
  // The state store refuses a copied file for signing, not for reading its fields.
  test::TempDir dir;
  const std::string copy = dir.file("main.state");
  std::filesystem::copy_file(test::data_path("state/main-hss-l2.state"), copy);
  auto info = state::inspect_state_file(copy);
  ASSERT_TRUE(info) << describe(info.error());
  ASSERT_TRUE(info->levels_bound());
  const std::vector<lms::LevelParams> levels = main_levels();
  const lms::HssScheme scheme(levels);
  EXPECT_EQ(scheme.params_digest(), info->levels_digest);
  EXPECT_EQ(scheme.params_digest(), lms::levels_digest_of(levels));
  EXPECT_FALSE(scheme.params_in_key_id()) << "L = 2: the public key does not name level 2";
  EXPECT_EQ(scheme.max_signatures(), info->max_signatures);
  EXPECT_EQ(scheme.tree_cache_file("/s/k.state", 0), "/s/k.state.cache");
  EXPECT_EQ(scheme.tree_cache_file("/s/k.state", 1), "/s/k.state.cache.level2");
}

TEST(ParamsDigest, TaggedDigestsAreNeverHssDigestsAndSeparateTagFromParameters) {
  const Bytes bc = {'B', 'C'};
  const Bytes c = {'C'};
  EXPECT_NE(tagged_params_digest("A", bc), tagged_params_digest("AB", c));
  EXPECT_EQ(tagged_params_digest("XMSS", bc), tagged_params_digest("XMSS", bc));
  EXPECT_NE(tagged_params_digest("XMSS", bc), tagged_params_digest("XMSSMT", bc));
  // An HSS input read as a tag and parameters: "KLMS levels" || ... never begins "KLMS params".
  const std::vector<lms::LevelParams> levels = main_levels();
  EXPECT_NE(tagged_params_digest("levels", Bytes{}), lms::levels_digest_of(levels));
  EXPECT_EQ(tagged_params_digest("", bc), ParamsDigest{}) << "no tag: binds nothing";
}

TEST(ParamsDigest, KeyIdIsSha256OfThePublicKey) {
  // FIPS 180-4 example: SHA-256("abc").
  const Bytes abc = {'a', 'b', 'c'};
  const KeyId id = key_id_of(abc);
  EXPECT_EQ(test::to_hex(id.data(), id.size()), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(StateLocation, NamedAndDefaultStateFiles) {
  EXPECT_EQ(requested_state_file("").error(), Error::kStatePathInvalid);
  EXPECT_EQ(requested_state_file("/tmp/dir/").error(), Error::kStatePathInvalid);
  auto absolute = requested_state_file("/tmp/k.state");
  ASSERT_TRUE(absolute);
  EXPECT_EQ(*absolute, "/tmp/k.state");
  auto relative = requested_state_file("k.state");
  ASSERT_TRUE(relative);
  EXPECT_EQ(*relative, std::filesystem::current_path().string() + "/k.state");
  const Bytes identifier = {0x01, 0xab, 0xff};
  EXPECT_EQ(state_file_in("/var/lib/klms", identifier), "/var/lib/klms/01abff.state");
  EXPECT_EQ(witness_named("tpm"), state::WitnessKind::kTpm);
  EXPECT_EQ(witness_named("etcd"), state::WitnessKind::kEtcd);
  EXPECT_EQ(witness_named("none"), state::WitnessKind::kNone);
  EXPECT_FALSE(witness_named("TPM"));
  Configuration config;
  config.witness = state::WitnessKind::kTpm;
  config.allow_network_fs = true;
  EXPECT_EQ(key_state_options(config, std::nullopt).witness, state::WitnessKind::kTpm) << "the configured default";
  EXPECT_EQ(key_state_options(config, state::WitnessKind::kNone).witness, state::WitnessKind::kNone);
  EXPECT_TRUE(key_state_options(config, std::nullopt).allow_network_fs);
}

TEST(StateLocation, DefaultDirectoryFollowsTheEnvironmentThenTheConfiguration) {
  test::TempDir dir;
  Configuration config;
  config.state_dir = dir.file("configured");
  ::unsetenv("KLMS_STATE_DIR");
  EXPECT_EQ(default_state_directory(config), dir.file("configured"));
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("configured"))) << "created";
  ::setenv("KLMS_STATE_DIR", dir.file("env/deeper").c_str(), 1);
  EXPECT_EQ(default_state_directory(config), dir.file("env/deeper"));
  ::unsetenv("KLMS_STATE_DIR");
  EXPECT_EQ(std::filesystem::status(dir.file("env/deeper")).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
}

}  // namespace
}  // namespace klms::stateful
