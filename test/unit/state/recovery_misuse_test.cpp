// Recovery and path misuse of the state store (the RecoveryMisuse suite of klms_state_tests): a
// flipped version bit in one block stays recoverable, adopt --advance 0 never recovers a damaged
// file, and state paths with line-breaking Unicode are refused. Each test was written as an attack
// on an earlier version of the code, failed then, and passes since its flaw was fixed.
#include <gtest/gtest.h>

#include <cstring>

#include "state/file_format.h"
#include "state/store.h"
#include "test/unit/state/state_test_util.h"

namespace klms::state {
namespace {

using namespace test::state_fixture;
using namespace format;

// Flaw: state/file_format.cpp decode_slot() reads the version before the checksum and
// decode_file() turns an unknown version in EITHER block into kStateUnsupportedVersion for the
// whole file — also in select_for_recovery, so `klms-state adopt --advance N` and `klms-state show`
// refuse it too. One flipped bit in bytes 8..11 of the non-current block of a version-2 file (2 ->
// 3 or 0) therefore bricks the key with "made by a newer version", although the other block holds
// the current slot intact, and no klms-state command recovers it. The issue asks for a fail-closed
// refusal with its own reason and a klms-state way to recover. Suggested: in a file whose other
// block is a valid version-2 slot, treat an unknown version whose checksum (as version 2) fails
// like a damaged block (kStateDamaged), and let select_for_recovery skip unknown-version blocks.
TEST(RecoveryMisuse, AFlippedVersionBitInOneBlockIsRecoverableByAdopt) {
  TempDir dir;
  const std::string path = dir.file("k.state");
  const KeyId key = make_key(9);
  ASSERT_EQ(create_state_file(path, key, 100, {}), Error::kOk);
  {
    auto h = StateHandle::open(path, key, {});
    ASSERT_TRUE(h);
    ASSERT_TRUE((*h)->take(5));
  }
  auto bytes = read_bytes(path);
  ASSERT_EQ(bytes.size(), kFileBytes);
  ASSERT_EQ(bytes[kBlockBytes + 8], 2);
  bytes[kBlockBytes + 8] ^= 0x01;  // one bit: version 3
  write_bytes_in_place(path, bytes);

  auto opened = StateHandle::open(path, key, {});
  if (!opened) {
    EXPECT_NE(opened.error(), Error::kStateUnsupportedVersion)
        << "one flipped bit reported as a file of a newer version";
  }
  AdoptOptions options;
  options.advance = 10;
  options.advance_given = true;
  auto adopted = adopt_state_file(path, options);
  ASSERT_TRUE(adopted) << "klms-state adopt --advance 10 cannot recover it: " << describe(adopted.error());
  EXPECT_GE(adopted->next, 5u);
}

// Flaw: tools/klms_state.cpp accepts `adopt --advance 0` (advance_given with advance 0) for a
// damaged file, and state/store.cpp adopt_state_file then adopts the surviving slot as is. For
// a version-1 file whose newest slot is damaged, the survivor is the OLDER slot: every index of the
// last reservation is handed out again. --advance is required exactly because the newest slot may
// be lost; 0 must not satisfy it. Suggested: refuse advance 0 (kInvalidArgument) for a damaged file.
TEST(RecoveryMisuse, AdoptingADamagedFileNeverGoesBackWithAdvanceZero) {
  TempDir dir;
  const std::string path = dir.file("v1.state");
  const KeyId key = make_key(10);
  ASSERT_EQ(create_state_file(path, key, 100, {}), Error::kOk);
  // Version 1 as the previous release left it after reserving [3, 8): block 0 generation 5 next 8
  // (newest), block 1 generation 4 next 3. Then block 0 is damaged.
  Slot newest;
  newest.version = kLegacyFormatVersion;
  newest.generation = 5;
  newest.next = 8;
  newest.max_signatures = 100;
  newest.key_id = key;
  newest.instance_id.fill(0x11);
  write_crafted_state(path, newest);
  auto slots = decode_file(path);
  ASSERT_EQ(slots.valid(), 2);
  Slot older = newest;
  older.generation = 4;
  older.next = 3;
  older.device = slots.slot[0].device;
  older.inode = slots.slot[0].inode;
  auto bytes = read_bytes(path);
  Block block;
  encode_slot(older, block);
  std::copy(block.begin(), block.end(), bytes.begin() + kBlockBytes);
  bytes[40] ^= 0x80;  // damage the newest slot (block 0)
  write_bytes_in_place(path, bytes);
  ASSERT_EQ(StateHandle::open(path, key, {}).error(), Error::kStateDamaged);

  AdoptOptions options;
  options.advance = 0;
  options.advance_given = true;
  auto adopted = adopt_state_file(path, options);
  if (adopted) {
    EXPECT_GE(adopted->next, 8u) << "adopted at next " << adopted->next
                                 << ": indices 3..7, handed out before the damage, are handed out again";
  }
}

// Flaw (minor): state/fs_checks.cpp has_control_characters() refuses C0 and DEL bytes only.
// A key file's state path may still hold U+0085 (NEL, a C1 control) or U+2028 / U+2029 (line and
// paragraph separators): Python's str.splitlines(), and so any script reading `openssl pkey -text`
// that way, sees the text after them as a line of its own ("state: ok", "remaining signatures:
// ..."). Suggested: refuse C1 controls (UTF-8 C2 80..C2 9F, and raw 0x80..0x9F) and U+2028/2029,
// or print the path escaped.
TEST(RecoveryMisuse, StatePathsWithLineBreakingCharactersAreRefused) {
  for (const char* bad : {"/k/x\xc2\x85state: ok", "/k/x\xe2\x80\xa8state: ok", "/k/x\xe2\x80\xa9state: ok"}) {
    EXPECT_EQ(check_state_path(bad), Error::kStatePathInvalid) << "accepted a path with a line break in it";
  }
}

}  // namespace
}  // namespace klms::state
