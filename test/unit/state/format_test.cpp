// The slot format and the choice of the current slot (docs/state.md "Choosing the current slot", §7, §3).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

#include "hashes/backend.h"
#include "state/file_format.h"
#include "test/unit/state/state_test_util.h"

namespace klms::state::format {
namespace {

using test::state_fixture::make_key;

Slot sample_slot(std::uint64_t generation, std::uint64_t next) {
  Slot s;
  s.generation = generation;
  s.next = next;
  s.max_signatures = 1024;
  s.key_id = make_key(1);
  s.instance_id.fill(0x5a);
  s.device = 0x0801;
  s.inode = 123456;
  s.reserving_pid = 4242;
  s.file_handle.fill(0xC3);
  return s;
}

FileImage image_of(const Slot& a, const Slot& b) {
  FileImage image{};
  Block block;
  encode_slot(a, block);
  std::memcpy(image.data(), block.data(), kBlockBytes);
  encode_slot(b, block);
  std::memcpy(image.data() + kBlockBytes, block.data(), kBlockBytes);
  return image;
}

void current_is(const FileImage& image, std::uint64_t next) {
  auto current = select_current(image, kFileBytes);
  ASSERT_TRUE(current) << describe(current.error());
  EXPECT_EQ(current->slot.next, next);
}

std::span<const std::uint8_t, kBlockBytes> block_span(const FileImage& image, unsigned b) {
  return std::span<const std::uint8_t, kBlockBytes>(image.data() + b * kBlockBytes, kBlockBytes);
}

TEST(StateFormat, RoundTripsEveryField) {
  const Slot s = sample_slot(7, 99);
  Block block;
  encode_slot(s, block);
  Slot decoded;
  ASSERT_EQ(decode_slot(block, decoded), SlotStatus::kValid);
  EXPECT_EQ(decoded, s);
  EXPECT_EQ(std::memcmp(block.data(), "KLMSSTAT", 8), 0);
  for (std::size_t i = kSlotBytes; i < kBlockBytes; ++i) ASSERT_EQ(block[i], 0) << i;
}

TEST(StateFormat, EveryChecksummedByteMatters) {
  Block block;
  encode_slot(sample_slot(3, 5), block);
  for (std::size_t i = 0; i < kSlotBytes; ++i) {
    Block damaged = block;
    damaged[i] ^= 0x01;
    Slot out;
    EXPECT_NE(decode_slot(damaged, out), SlotStatus::kValid) << "byte " << i;
  }
}

Slot legacy_slot(std::uint64_t generation, std::uint64_t next) {
  Slot s = sample_slot(generation, next);
  s.version = kLegacyFormatVersion;
  s.levels_digest = {};
  return s;
}

TEST(StateFormat, VersionTwoSlotHasTheLevelsDigestAndVersionOneStillDecodes) {
  Slot s = sample_slot(3, 4);
  s.levels_digest.fill(0x77);
  Block block;
  encode_slot(s, block);
  EXPECT_EQ(block[8], 2);
  Slot out;
  ASSERT_EQ(decode_slot(block, out), SlotStatus::kValid);
  EXPECT_EQ(out.levels_digest, s.levels_digest);
  const Slot old = legacy_slot(3, 4);
  encode_slot(old, block);
  EXPECT_EQ(block[8], 1);
  for (std::size_t i = kLegacySlotBytes; i < kBlockBytes; ++i) ASSERT_EQ(block[i], 0) << i;
  ASSERT_EQ(decode_slot(block, out), SlotStatus::kValid);
  EXPECT_EQ(out, old);
}

TEST(StateFormat, TheSameSlotInBothBlocksIsTheRestingState) {
  auto current = select_current(image_of(sample_slot(4, 10), sample_slot(4, 10)), kFileBytes);
  ASSERT_TRUE(current);
  EXPECT_TRUE(current->both_blocks);
  EXPECT_EQ(current->slot.next, 10u);
  EXPECT_EQ(first_block_to_write(*current), 1u);
}

TEST(StateFormat, AnInterruptedWriteLeavesTheNewerSlotOneGenerationAhead) {
  auto current = select_current(image_of(sample_slot(4, 10), sample_slot(5, 12)), kFileBytes);
  ASSERT_TRUE(current);
  EXPECT_EQ(current->block, 1u);
  EXPECT_FALSE(current->both_blocks);
  EXPECT_EQ(current->slot.next, 12u);
  EXPECT_EQ(first_block_to_write(*current), 0u);  // the block not holding it
  current = select_current(image_of(sample_slot(9, 20), sample_slot(8, 15)), kFileBytes);
  ASSERT_TRUE(current);
  EXPECT_EQ(current->block, 0u);
  EXPECT_EQ(current->slot.next, 20u);
}

TEST(StateFormat, OneDamagedVersionTwoSlotLeavesTheOther) {
  FileImage image = image_of(sample_slot(6, 30), sample_slot(6, 30));
  std::memset(image.data() + 40, 0xEE, 100);
  auto current = select_current(image, kFileBytes);
  ASSERT_TRUE(current);
  EXPECT_EQ(current->block, 1u);
  EXPECT_EQ(current->slot.next, 30u);
}

TEST(StateFormat, AVersionOneFileWithOneDamagedSlotIsRefusedNotGuessed) {
  // Version 1 wrote one block per reservation: the damaged one may have been the newest.
  FileImage image = image_of(legacy_slot(6, 30), legacy_slot(5, 25));
  std::memset(image.data() + 40, 0xEE, 100);
  EXPECT_EQ(select_current(image, kFileBytes).error(), Error::kStateDamaged);
  auto recovered = select_for_recovery(image, kFileBytes);
  ASSERT_TRUE(recovered);
  EXPECT_EQ(recovered->refused, Error::kStateDamaged);
  EXPECT_EQ(recovered->current.slot.next, 25u);
  // Both valid: as version 1 always read it.
  current_is(image_of(legacy_slot(6, 30), legacy_slot(5, 25)), 30u);
}

TEST(StateFormat, SlotsFromDifferentTimesAreDamagedNotChosen) {
  // Two generations apart: no version-2 writer leaves that (a partial restore, a misdirected write).
  EXPECT_EQ(select_current(image_of(sample_slot(9, 40), sample_slot(7, 30)), kFileBytes).error(), Error::kStateDamaged);
  // Version 1 written over version 2: not ours either.
  EXPECT_EQ(select_current(image_of(sample_slot(5, 40), legacy_slot(6, 41)), kFileBytes).error(), Error::kStateDamaged);
  // The upgrade's first write: version 2 one ahead of version 1 is normal.
  current_is(image_of(legacy_slot(5, 40), sample_slot(6, 41)), 41u);
}

TEST(StateFormat, BothSlotsDamagedIsCorrupt) {
  FileImage image = image_of(sample_slot(6, 30), sample_slot(5, 25));
  image[100] ^= 1;
  image[kBlockBytes + 100] ^= 1;
  EXPECT_EQ(select_current(image, kFileBytes).error(), Error::kStateCorrupt);
  EXPECT_EQ(select_for_recovery(image, kFileBytes).error(), Error::kStateCorrupt);
}

// The rule of state/file_format.h, checked over every state the version-2 writer can leave and
// every way one block can be damaged: whatever select_current returns is at or beyond every index
// that was handed out. The writer is modelled exactly as state_io writes (first the block not
// holding the current slot, then the other; indices handed out after the second write).
TEST(StateFormat, NoSingleBlockDamageEverRollsBackAHandedOutIndex) {
  struct Disk {
    Block blocks[2];
  };
  auto image_from = [](const Disk& d) {
    FileImage image{};
    std::memcpy(image.data(), d.blocks[0].data(), kBlockBytes);
    std::memcpy(image.data() + kBlockBytes, d.blocks[1].data(), kBlockBytes);
    return image;
  };
  Disk disk;
  Slot slot = sample_slot(1, 0);
  encode_slot(slot, disk.blocks[0]);
  encode_slot(slot, disk.blocks[1]);
  std::vector<Block> history = {disk.blocks[0]};  // every block image ever written
  std::uint64_t handed_out = 0;                   // next index after everything handed out
  unsigned checked = 0;

  // Damage to block `only` (or to either, when 2): the fault model is one damaged block at a time,
  // and a block torn by a crash is that one until the next write repairs it.
  auto check_all_damage = [&](const Disk& d, std::uint64_t floor, unsigned only = 2) {
    for (unsigned b = 0; b < 2; ++b) {
      if (only != 2 && b != only) continue;
      std::vector<Disk> variants;
      Disk zeroed = d;
      zeroed.blocks[b].fill(0);
      variants.push_back(zeroed);
      for (std::size_t i = 0; i < kSlotBytes; i += 3) {  // a bit flip in every third slot byte
        Disk flipped = d;
        flipped.blocks[b][i] ^= static_cast<std::uint8_t>(1u << (i % 8));
        variants.push_back(flipped);
      }
      for (const Block& old : history) {  // a partial restore / misdirected write of an old block
        Disk restored = d;
        restored.blocks[b] = old;
        variants.push_back(restored);
      }
      Disk garbage = d;
      for (std::size_t i = 0; i < kBlockBytes; ++i) garbage.blocks[b][i] = static_cast<std::uint8_t>(i * 7 + 1);
      variants.push_back(garbage);
      for (const Disk& v : variants) {
        auto current = select_current(image_from(v), kFileBytes);
        if (current) {
          ASSERT_GE(current->slot.next, floor) << "block " << b << " damaged rolled the index back";
        }
        ++checked;
      }
    }
  };

  for (std::uint64_t reservation = 1; reservation <= 6; ++reservation) {
    const std::uint64_t batch = reservation % 3 + 1;
    auto current = select_current(image_from(disk), kFileBytes);
    ASSERT_TRUE(current);
    Slot updated = current->slot;
    updated.generation += 1;
    updated.next += batch;
    const unsigned first = first_block_to_write(*current);
    Block written;
    encode_slot(updated, written);
    history.push_back(written);
    // A crash in the first write: its block holds anything between old and new, say garbage.
    Disk torn = disk;
    torn.blocks[first].fill(0xA5);
    check_all_damage(torn, handed_out, first);
    disk.blocks[first] = written;
    check_all_damage(disk, handed_out);  // a crash between the two writes
    torn = disk;
    torn.blocks[first ^ 1].fill(0x5A);
    check_all_damage(torn, handed_out, first ^ 1);  // a crash in the second write
    disk.blocks[first ^ 1] = written;
    handed_out = updated.next;            // only now may the indices leave
    check_all_damage(disk, handed_out);   // at rest
  }
  EXPECT_GT(checked, 1000u);
}

TEST(StateFormat, SizesOtherThanTwoBlocksFailClosed) {
  const FileImage image = image_of(sample_slot(2, 1), sample_slot(1, 0));
  EXPECT_EQ(select_current(image, 0).error(), Error::kStateTruncated);
  EXPECT_EQ(select_current(image, 100).error(), Error::kStateTruncated);
  EXPECT_EQ(select_current(image, kBlockBytes).error(), Error::kStateTruncated);
  EXPECT_EQ(select_current(image, kFileBytes - 1).error(), Error::kStateTruncated);
  EXPECT_EQ(select_current(image, kFileBytes + 1).error(), Error::kStateCorrupt);
}

TEST(StateFormat, NoMagicIsNotAStateFile) {
  FileImage image{};
  std::memset(image.data(), 'x', image.size());
  EXPECT_EQ(select_current(image, kFileBytes).error(), Error::kStateNotAStateFile);
  EXPECT_EQ(select_current(image, 300).error(), Error::kStateNotAStateFile);
}

// A slot of an unknown version may be a newer writer's current one: never used, never guessed.
// Beside a valid slot of ours it is refused as damaged (adopt --advance recovers it: a flipped
// version bit must not brick the key); alone, as an unsupported version.
TEST(StateFormat, UnknownVersionFailsClosedEvenBesideAValidSlot) {
  FileImage image = image_of(sample_slot(6, 30), sample_slot(6, 30));
  image[8] = 3;  // version 3 in block 0
  Slot out;
  EXPECT_EQ(decode_slot(block_span(image, 0), out), SlotStatus::kUnsupportedVersion);
  EXPECT_EQ(select_current(image, kFileBytes).error(), Error::kStateDamaged);
  auto recovered = select_for_recovery(image, kFileBytes);
  ASSERT_TRUE(recovered);
  EXPECT_EQ(recovered->current.slot.next, 30u);
  image[kBlockBytes + 8] = 3;
  EXPECT_EQ(select_current(image, kFileBytes).error(), Error::kStateUnsupportedVersion);
  EXPECT_EQ(select_for_recovery(image, kFileBytes).error(), Error::kStateUnsupportedVersion);
}

TEST(StateFormat, VersionOneSlotsMoreThanOneGenerationApartAreDamaged) {
  current_is(image_of(legacy_slot(6, 30), legacy_slot(5, 25)), 30u);
  EXPECT_EQ(select_current(image_of(legacy_slot(8, 30), legacy_slot(5, 25)), kFileBytes).error(), Error::kStateDamaged);
}

TEST(StateFormat, InconsistentSlotsAreCorrupt) {
  Slot older = sample_slot(5, 40);
  Slot newer = sample_slot(6, 39);  // next went backwards
  EXPECT_EQ(select_current(image_of(older, newer), kFileBytes).error(), Error::kStateCorrupt);

  newer = sample_slot(6, 41);
  newer.key_id = make_key(2);
  EXPECT_EQ(select_current(image_of(older, newer), kFileBytes).error(), Error::kStateCorrupt);

  newer = sample_slot(6, 41);
  newer.max_signatures = 2048;
  EXPECT_EQ(select_current(image_of(older, newer), kFileBytes).error(), Error::kStateCorrupt);

  newer = sample_slot(5, 41);  // same generation, different contents
  EXPECT_EQ(select_current(image_of(older, newer), kFileBytes).error(), Error::kStateCorrupt);
  EXPECT_TRUE(select_current(image_of(older, older), kFileBytes));  // identical copies are fine
}

// Recovery takes the highest next only among blocks of one state file: a lease whose block was
// overwritten with its parent's (a higher next, a wider range), a sibling lease's or another key's
// is refused, never adopted as that other file.
TEST(StateFormat, RecoveryRefusesBlocksOfDifferentStateFiles) {
  Slot lease = sample_slot(5, 10);
  lease.flags = kFlagLease;
  lease.lease_start = 10;
  lease.lease_end = lease.max_signatures = 20;
  lease.lease_depth = 1;
  lease.parent_instance_id.fill(0x11);
  Slot parent = sample_slot(9, 20);
  parent.instance_id.fill(0x11);
  Slot sibling = lease;
  sibling.generation = 3;
  sibling.next = sibling.lease_start = 20;
  sibling.lease_end = sibling.max_signatures = 30;
  sibling.instance_id.fill(0x22);
  Slot other_key = sample_slot(9, 500);
  other_key.key_id = make_key(2);
  Slot other_instance = sample_slot(9, 15);  // the same key and kind, another file (or a copy adopted)
  other_instance.instance_id.fill(0x33);
  Slot own = sample_slot(5, 10);
  for (const auto& [mine, donor] : {std::pair{lease, parent}, std::pair{lease, sibling}, std::pair{own, other_key},
                                    std::pair{own, other_instance}}) {
    for (bool donor_first : {true, false}) {
      const FileImage image = donor_first ? image_of(donor, mine) : image_of(mine, donor);
      EXPECT_FALSE(select_current(image, kFileBytes));
      auto recovered = select_for_recovery(image, kFileBytes);
      ASSERT_FALSE(recovered) << "took the slot with next " << recovered->current.slot.next;
      EXPECT_EQ(recovered.error(), Error::kStateMixedBlocks);
    }
  }
  // Two blocks of one file from different times are still recovered, from the higher next.
  auto recovered = select_for_recovery(image_of(sample_slot(9, 40), sample_slot(7, 30)), kFileBytes);
  ASSERT_TRUE(recovered);
  EXPECT_EQ(recovered->current.slot.next, 40u);
}

TEST(StateFormat, UnknownFlagsFailClosed) {
  Slot s = sample_slot(5, 1);
  s.flags = 4;
  Block block;
  encode_slot(s, block);
  Slot out;
  EXPECT_EQ(decode_slot(block, out), SlotStatus::kUnsupportedVersion);
}

// docs/state.md "One binding, one name": a TPM record with a per-binding policy is witness kind 3,
// with its extension (last reservation, the TPM's reset and restart counts) under a checksum of
// its own; a build that knows only kind 1 verifies the checksum at 328 and refuses the kind.
Slot tpm_slot(bool policy) {
  Slot s = sample_slot(9, 40);
  s.flags = kFlagWitness;
  s.witness.kind = WitnessKind::kTpm;
  s.witness.nv_index = kTpmFirstIndex + 3;
  s.witness.base = 0xFFFFFFFFFFFFFF00u;
  s.witness.counter_name.fill(0x77);
  s.witness.tpm_policy = policy;
  if (policy) {
    s.witness.last_reservation = 16;
    s.witness.tpm_reset_count = 5;
    s.witness.tpm_restart_count = 2;
  }
  return s;
}

TEST(StateFormat, PerBindingTpmRecordIsKindThreeAndRoundTrips) {
  for (bool policy : {false, true}) {
    Block block;
    encode_slot(tpm_slot(policy), block);
    EXPECT_EQ(block[kWitnessRecordOffset], policy ? 3 : 1);
    Slot decoded;
    ASSERT_EQ(decode_slot(block, decoded), SlotStatus::kValid) << policy;
    EXPECT_EQ(decoded, tpm_slot(policy));
    // Kind 1 ends at its checksum; kind 3 goes on to its extension's.
    const std::size_t end = policy ? kTpmPolicyChecksummedBytes + 32 : kWitnessSlotBytes;
    for (std::size_t i = end; i < kBlockBytes; ++i) ASSERT_EQ(block[i], 0) << i;
    for (std::size_t i = 0; i < end; ++i) {
      Block damaged = block;
      damaged[i] ^= 0x01;
      Slot out;
      EXPECT_NE(decode_slot(damaged, out), SlotStatus::kValid) << "byte " << i;
    }
  }
}

TEST(StateFormat, KindThreeWithItsFirstChecksumOnlyIsRefusedAsUnsupportedByAKindOneReader) {
  // What an older build checks of a kind-3 slot: the checksum at 328 verifies, the kind does not.
  Block block;
  encode_slot(tpm_slot(true), block);
  std::uint8_t expected[32];
  hashes::sha256_digest(block.data(), kWitnessChecksummedBytes, expected);
  EXPECT_EQ(std::memcmp(expected, block.data() + kWitnessChecksummedBytes, 32), 0);
  block[kWitnessRecordOffset] = 4;  // a kind this build does not know
  hashes::sha256_digest(block.data(), kWitnessChecksummedBytes, block.data() + kWitnessChecksummedBytes);
  Slot out;
  EXPECT_EQ(decode_slot(block, out), SlotStatus::kUnsupportedVersion);
}

TEST(StateFormat, ALastReservationBeyondTheKeyIsCorrupt) {
  Slot s = tpm_slot(true);
  s.witness.last_reservation = s.max_signatures + 1;
  Block block;
  encode_slot(s, block);
  Slot out;
  EXPECT_EQ(decode_slot(block, out), SlotStatus::kBadValues);
}

TEST(StateFormat, ImpossibleValuesAreCorrupt) {
  Slot bad = sample_slot(6, 2000);  // next > max, with a valid checksum
  Block block;
  encode_slot(bad, block);
  Slot out;
  EXPECT_EQ(decode_slot(block, out), SlotStatus::kBadValues);
  EXPECT_EQ(select_current(image_of(sample_slot(5, 10), bad), kFileBytes).error(), Error::kStateCorrupt);
  bad = sample_slot(6, 0);
  bad.max_signatures = 0;
  EXPECT_EQ(select_current(image_of(sample_slot(5, 0), bad), kFileBytes).error(), Error::kStateCorrupt);
}

TEST(StateFormat, MaxSignaturesForTotalHeight) {
  EXPECT_EQ(max_signatures_for_total_height(0), 1u);
  EXPECT_EQ(max_signatures_for_total_height(5), 32u);
  EXPECT_EQ(max_signatures_for_total_height(25), 1u << 25);
  EXPECT_EQ(max_signatures_for_total_height(63), std::uint64_t{1} << 63);
  EXPECT_EQ(max_signatures_for_total_height(64), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(max_signatures_for_total_height(200), std::numeric_limits<std::uint64_t>::max());
}

}  // namespace
}  // namespace klms::state::format
