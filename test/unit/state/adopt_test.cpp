// Re-adopting a copied, moved or restored state file (docs/state.md §4): the library call and the
// klms-state command.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "state/store.h"
#include "test/unit/state/state_test_util.h"

namespace klms::state {
namespace {

using namespace test::state_fixture;

struct AdoptTest : ::testing::Test {
  TempDir dir;
  std::string original = dir.file("key.state");
  std::string moved = dir.file("moved.state");
  KeyId key = make_key(6);

  // A key that signed 3 times, then its state file copied to `moved` and the original removed.
  void SetUp() override {
    ASSERT_EQ(create_state_file(original, key, 100, {}), Error::kOk);
    {
      auto h = StateHandle::open(original, key, {});
      ASSERT_TRUE(h);
      for (int i = 0; i < 3; ++i) ASSERT_TRUE((*h)->take(1));
    }
    copy_to_new_file(original, moved);
    ASSERT_EQ(::unlink(original.c_str()), 0);
  }
};

TEST_F(AdoptTest, AdoptionMakesACopyUsableWithANewInstance) {
  EXPECT_EQ(StateHandle::open(moved, key, {}).error(), Error::kStateCopied);
  const auto before = read_state_file(moved);
  ASSERT_TRUE(before);
  EXPECT_TRUE(before->looks_copied());

  ASSERT_EQ(adopt_state_file(moved, key), Error::kOk);
  const auto after = read_state_file(moved);
  ASSERT_TRUE(after);
  EXPECT_FALSE(after->looks_copied());
  EXPECT_NE(after->instance_id, before->instance_id);
  EXPECT_EQ(after->next, 3u);
  EXPECT_EQ(after->key_id, key);
  EXPECT_EQ(after->generation, before->generation + 1);

  auto h = StateHandle::open(moved, key, {});
  ASSERT_TRUE(h) << describe(h.error());
  EXPECT_EQ((*h)->take(1)->index(), 3u);
}

TEST_F(AdoptTest, AdvanceMovesNextForwardAndClampsAtTheMaximum) {
  AdoptOptions options;
  options.advance = 50;
  auto adopted = adopt_state_file(moved, options);
  ASSERT_TRUE(adopted);
  EXPECT_EQ(adopted->next, 53u);
  EXPECT_EQ(adopted->key_id, key) << "no key given: the file's own is kept";
  options.advance = ~std::uint64_t{0};  // would wrap: exhausted instead
  adopted = adopt_state_file(moved, options);
  ASSERT_TRUE(adopted);
  EXPECT_EQ(adopted->next, 100u);
  auto h = StateHandle::open(moved, key, {});
  ASSERT_TRUE(h);
  EXPECT_EQ((*h)->take(1).error(), Error::kExhausted);
}

TEST_F(AdoptTest, AdoptionRefusesWhatOpeningRefuses) {
  EXPECT_EQ(adopt_state_file(moved, make_key(7)), Error::kStateForeign);
  EXPECT_EQ(adopt_state_file(original, key), Error::kStateMissing);
  ASSERT_EQ(::chmod(moved.c_str(), 0660), 0);
  EXPECT_EQ(adopt_state_file(moved, key), Error::kStateInsecureFile);
  ASSERT_EQ(::chmod(moved.c_str(), 0600), 0);
  inject_state_write_failure(1, true);
  EXPECT_EQ(adopt_state_file(moved, key), Error::kStateWriteFailed);
  inject_state_write_failure(0, false);
}

#ifdef KLMS_STATE_TOOL
ProcessResult tool(const std::vector<std::string>& args, const std::string& input = "") {
  std::vector<std::string> argv = {KLMS_STATE_TOOL};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, {}, input);
}

TEST_F(AdoptTest, ToolShowsTheState) {
  auto shown = tool({"show", moved});
  EXPECT_EQ(shown.exit_code, 1) << "signing refuses a moved file: show exits 1 (klms-state(1))";
  EXPECT_NE(shown.out.find("key id:           " + hex(key)), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("next index:       3\n"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("max signatures:   100\n"), std::string::npos);
  EXPECT_NE(shown.out.find("remaining:        97\n"), std::string::npos);
  EXPECT_NE(shown.out.find("instance id:"), std::string::npos);
  EXPECT_NE(shown.out.find("recorded:"), std::string::npos);
  EXPECT_NE(shown.out.find("actual:"), std::string::npos);
  EXPECT_NE(shown.out.find("copied/restored:  YES"), std::string::npos) << shown.out;

  auto missing = tool({"show", original});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("state file missing"), std::string::npos) << missing.err;
  EXPECT_EQ(tool({"show"}).exit_code, 2);
  EXPECT_EQ(tool({"frobnicate", moved}).exit_code, 2);
  EXPECT_EQ(tool({}).exit_code, 2);
}

TEST_F(AdoptTest, ToolAdoptsOnlyAfterConfirmation) {
  const auto before = read_bytes(moved);
  auto refused = tool({"adopt", moved}, "yes\n");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("not confirmed"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("adopt " + hex(key).substr(0, 8)), std::string::npos) << "asks for the exact text";
  EXPECT_NE(refused.err.find("--advance"), std::string::npos) << "explains restored files";
  EXPECT_EQ(read_bytes(moved), before) << "nothing changed";
  EXPECT_EQ(tool({"adopt", moved}).exit_code, 1) << "no input is no confirmation";

  auto adopted = tool({"adopt", "--advance", "10", moved}, "adopt " + hex(key).substr(0, 8) + "\n");
  EXPECT_EQ(adopted.exit_code, 0) << adopted.err;
  auto h = StateHandle::open(moved, key, {});
  ASSERT_TRUE(h) << describe(h.error());
  EXPECT_EQ((*h)->take(1)->index(), 13u);
}

TEST_F(AdoptTest, ToolAdoptsWithTheScriptFlag) {
  auto adopted = tool({"adopt", "--yes-i-destroyed-the-original", "--key-id", hex(key), moved});
  EXPECT_EQ(adopted.exit_code, 0) << adopted.err;
  EXPECT_TRUE(StateHandle::open(moved, key, {}));
  auto shown = tool({"show", moved});
  EXPECT_NE(shown.out.find("copied/restored:  no"), std::string::npos) << shown.out;

  auto foreign = tool({"adopt", "--yes-i-destroyed-the-original", "--key-id", hex(make_key(8)), moved});
  EXPECT_EQ(foreign.exit_code, 1);
  EXPECT_NE(foreign.err.find("another key"), std::string::npos) << foreign.err;
  EXPECT_EQ(tool({"adopt", "--advance", "x", moved}).exit_code, 2);
  EXPECT_EQ(tool({"adopt", "--key-id", "12", moved}).exit_code, 2);
  EXPECT_EQ(tool({"adopt"}).exit_code, 2);
}
#endif

}  // namespace
}  // namespace klms::state
