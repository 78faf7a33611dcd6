// The slot format and the choice of the current slot (STATE.md §7, §3).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "lms/state_file_format.h"
#include "test/unit/state/state_test_util.h"

namespace klms::lms::state_format {
namespace {

using test::state::make_key;

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

TEST(StateFormat, TakesTheValidSlotWithTheLargerGeneration) {
  auto current = select_current(image_of(sample_slot(4, 10), sample_slot(5, 12)), kFileBytes);
  ASSERT_TRUE(current);
  EXPECT_EQ(current->block, 1u);
  EXPECT_EQ(current->slot.next, 12u);
  EXPECT_EQ(block_to_write(*current), 0u);

  current = select_current(image_of(sample_slot(9, 20), sample_slot(8, 15)), kFileBytes);
  ASSERT_TRUE(current);
  EXPECT_EQ(current->block, 0u);
  EXPECT_EQ(current->slot.next, 20u);
}

TEST(StateFormat, OneDamagedSlotIsNormal) {
  // A crash while writing block 0 (the older one) leaves it torn: block 1 is used.
  FileImage image = image_of(sample_slot(6, 30), sample_slot(5, 25));
  std::memset(image.data() + 40, 0xEE, 100);  // torn write of the newer-to-be slot
  auto current = select_current(image, kFileBytes);
  ASSERT_TRUE(current);
  EXPECT_EQ(current->block, 1u);
  EXPECT_EQ(current->slot.next, 25u);
}

TEST(StateFormat, BothSlotsDamagedIsCorrupt) {
  FileImage image = image_of(sample_slot(6, 30), sample_slot(5, 25));
  image[100] ^= 1;
  image[kBlockBytes + 100] ^= 1;
  EXPECT_EQ(select_current(image, kFileBytes).error(), Error::kStateCorrupt);
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

TEST(StateFormat, UnknownVersionFailsClosedEvenBesideAValidSlot) {
  FileImage image = image_of(sample_slot(6, 30), sample_slot(5, 25));
  image[8] = 2;  // version 2 in block 0
  Slot out;
  EXPECT_EQ(decode_slot(block_span(image, 0), out), SlotStatus::kUnsupportedVersion);
  EXPECT_EQ(select_current(image, kFileBytes).error(), Error::kStateUnsupportedVersion);
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
}  // namespace klms::lms::state_format
