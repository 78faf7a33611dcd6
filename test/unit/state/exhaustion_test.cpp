// The exhaustion threshold and its gate (docs/state.md §5): a key's last
// min(T, range / 10) indices wait for `klms-state acknowledge`; the refusal writes nothing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <vector>

#include "state/exhaustion.h"
#include "state/file_format.h"
#include "state/store.h"
#include "test/unit/state/state_test_util.h"

namespace klms::state {
namespace {

using namespace test::state_fixture;

LevelsDigest some_levels() {
  LevelsDigest d{};
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<std::uint8_t>(0x40 + i);
  return d;
}

struct ExhaustionTest : ::testing::Test {
  TempDir dir;
  std::string path = dir.file("key.state");
  KeyId key = make_key(12);
  LevelsDigest levels = some_levels();

  // A key of 1000 signatures with the default T = 100 (threshold min(100, 1000 / 10) = 100),
  // moved forward to `next` by an adoption (no handle keeps a reservation).
  void make_at(std::uint64_t next, const StateOptions& options = {}) {
    ASSERT_EQ(create_state_file(path, key, 1000, options, &levels), Error::kOk);
    if (next == 0) return;
    AdoptOptions adopt;
    adopt.advance = next;
    adopt.advance_given = true;
    ASSERT_TRUE(adopt_state_file(path, adopt));
  }
  std::shared_ptr<StateHandle> open() {
    auto h = StateHandle::open(path, KeyBinding{key, levels, false}, {});
    EXPECT_TRUE(h) << describe(h.error());
    return h ? *h : nullptr;
  }
};

// The rule of docs/state.md §5, worked by hand: min(T, range / 10), at least 1, 0 when T is 0.
TEST(ExhaustionThreshold, IsTheSmallerOfTAndATenthAndAtLeastOne) {
  EXPECT_EQ(exhaustion_threshold(100, 32), 3u) << "an H5 key";
  EXPECT_EQ(exhaustion_threshold(100, 1000), 100u);
  EXPECT_EQ(exhaustion_threshold(100, std::uint64_t{1} << 20), 100u) << "an H20 key: T, not 104,857";
  EXPECT_EQ(exhaustion_threshold(100, 5), 1u) << "at least one";
  EXPECT_EQ(exhaustion_threshold(7, 1000), 7u);
  EXPECT_EQ(exhaustion_threshold(0, 1000), 0u) << "T = 0: never";
  EXPECT_TRUE(takes_last_indices(101, 1, 100) == false);
  EXPECT_TRUE(takes_last_indices(100, 1, 100));
  EXPECT_TRUE(takes_last_indices(150, 51, 100)) << "a batch reaching one index into the last 100";
  EXPECT_FALSE(takes_last_indices(150, 50, 100));
  EXPECT_FALSE(takes_last_indices(1, 1, 0));
}

TEST_F(ExhaustionTest, AKeyAtTPlusOneSignsOnceThenRefusesAndWritesNothing) {
  make_at(899);  // remaining 101 = T + 1
  auto h = open();
  ASSERT_TRUE(h);
  auto first = h->take(1);
  ASSERT_TRUE(first) << describe(first.error());
  EXPECT_EQ(first->index(), 899u);
  const auto before = read_bytes(path);
  const auto info_before = read_state_file(path);
  ASSERT_TRUE(info_before);
  EXPECT_TRUE(info_before->awaits_acknowledgement());
  EXPECT_EQ(h->take(1).error(), Error::kExhaustionNotAcknowledged) << "remaining 100 = T";
  EXPECT_EQ(h->take(1).error(), Error::kExhaustionNotAcknowledged) << "and stays so";
  EXPECT_EQ(read_bytes(path), before) << "the refusal wrote nothing: same next index, same generation";
  EXPECT_FALSE(h->poisoned());
  EXPECT_TRUE(std::string(describe(Error::kExhaustionNotAcknowledged)).find("klms-state acknowledge") !=
              std::string::npos);

  // The acknowledgement lifts it for the open handle too (same instance), to the very end.
  auto acknowledged = acknowledge_exhaustion(path, key, {});
  ASSERT_TRUE(acknowledged) << describe(acknowledged.error());
  EXPECT_TRUE(acknowledged->exhaustion_acknowledged);
  EXPECT_EQ(acknowledged->next, 900u) << "moves no index";
  EXPECT_EQ(acknowledged->generation, info_before->generation + 1);
  EXPECT_EQ(acknowledged->instance_id, info_before->instance_id);
  for (std::uint64_t i = 900; i < 1000; ++i) {
    auto lease = h->take(1);
    ASSERT_TRUE(lease) << i << ": " << describe(lease.error());
    EXPECT_EQ(lease->index(), i);
  }
  EXPECT_EQ(h->take(1).error(), Error::kExhausted);
}

TEST_F(ExhaustionTest, AReservationReachingIntoTheLastIndicesIsRefused) {
  make_at(0);
  auto h = open();
  ASSERT_TRUE(h);
  EXPECT_EQ(h->take(901).error(), Error::kExhaustionNotAcknowledged) << "index 900 is one of the last 100";
  EXPECT_EQ(read_state_file(path)->next, 0u);
  auto lease = h->take(900);
  ASSERT_TRUE(lease) << describe(lease.error());
  EXPECT_EQ(read_state_file(path)->next, 900u);
}

TEST_F(ExhaustionTest, ALeaseIntoTheLastIndicesWaitsButALeaseSignsToItsEnd) {
  make_at(0);
  const std::string lease_path = dir.file("lease.state");
  const auto before = read_bytes(path);
  EXPECT_EQ(lease_state_file(path, lease_path, 901, {}).error(), Error::kExhaustionNotAcknowledged);
  EXPECT_EQ(read_bytes(path), before) << "the parent gave up nothing";
  EXPECT_NE(::access(lease_path.c_str(), F_OK), 0) << "and no lease file was made";

  auto made = lease_state_file(path, lease_path, 900, {});
  ASSERT_TRUE(made) << describe(made.error());
  EXPECT_TRUE(made->parent.awaits_acknowledgement());
  EXPECT_FALSE(made->lease.awaits_acknowledgement()) << "a lease's end is routine";
  // The lease signs its whole range, its last 90 too, with no acknowledgement.
  {
    auto h = StateHandle::open(lease_path, KeyBinding{key, levels, false}, {});
    ASSERT_TRUE(h) << describe(h.error());
    for (std::uint64_t i = 0; i < 900; ++i) ASSERT_TRUE((*h)->take(1)) << i;
    EXPECT_EQ((*h)->take(1).error(), Error::kExhausted);
  }
  EXPECT_EQ(acknowledge_exhaustion(lease_path, key, {}).error(), Error::kInvalidArgument);

  EXPECT_EQ(lease_state_file(path, dir.file("rest.state"), 100, {}).error(), Error::kExhaustionNotAcknowledged);
  ASSERT_TRUE(acknowledge_exhaustion(path, key, {}));
  EXPECT_TRUE(lease_state_file(path, dir.file("rest.state"), 100, {}));
}

TEST_F(ExhaustionTest, LowSignaturesWarningZeroNeverGates) {
  StateOptions options;
  options.low_signatures_warning = 0;
  ASSERT_EQ(create_state_file(path, key, 20, options, &levels), Error::kOk);
  auto h = open();
  ASSERT_TRUE(h);
  for (std::uint64_t i = 0; i < 20; ++i) ASSERT_TRUE(h->take(1)) << i;
  EXPECT_EQ(h->take(1).error(), Error::kExhausted);
  auto info = read_state_file(path);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->low_signatures_warning, 0u);
  EXPECT_EQ(info->exhaustion_threshold(), 0u);
  EXPECT_FALSE(info->below_exhaustion_threshold());
}

// T is recorded only when it is not the default (state/file_format.h bit 4): a key generated
// with the default has no flag an older build would refuse.
TEST_F(ExhaustionTest, TIsRecordedAtGenerationOnlyWhenNotTheDefault) {
  make_at(0);
  auto raw = decode_file(path);
  ASSERT_EQ(raw.valid(), 2);
  EXPECT_EQ(raw.slot[0].flags, 0u);
  EXPECT_EQ(read_state_file(path)->low_signatures_warning, kDefaultLowSignaturesWarning);

  const std::string seven = dir.file("seven.state");
  StateOptions options;
  options.low_signatures_warning = 7;
  ASSERT_EQ(create_state_file(seven, key, 1000, options, &levels), Error::kOk);
  const auto bytes = read_bytes(seven);
  std::uint32_t flags = 0;
  std::uint32_t t = 0;
  std::memcpy(&flags, bytes.data() + 12, 4);
  std::memcpy(&t, bytes.data() + 108, 4);
  EXPECT_EQ(flags, format::kFlagThreshold);
  EXPECT_EQ(t, 7u);
  auto info = read_state_file(seven);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->exhaustion_threshold(), 7u);
  // A lease carries the key's T (its warning), not a gate.
  auto made = lease_state_file(seven, dir.file("seven-lease.state"), 10, {});
  ASSERT_TRUE(made) << describe(made.error());
  EXPECT_EQ(made->lease.low_signatures_warning, 7u);
  EXPECT_EQ(made->lease.exhaustion_threshold(), 1u) << "min(7, 10 / 10)";
}

TEST_F(ExhaustionTest, AcknowledgeChecksTheKeyAndTheFileAndSurvivesAdoption) {
  make_at(950);
  const auto before = read_bytes(path);
  EXPECT_EQ(acknowledge_exhaustion(path, make_key(13), {}).error(), Error::kStateForeign);
  EXPECT_EQ(read_bytes(path), before) << "a wrong key id writes nothing";
  const std::string copy = dir.file("copy.state");
  copy_to_new_file(path, copy);
  EXPECT_EQ(acknowledge_exhaustion(copy, key, {}).error(), Error::kStateCopied);
  EXPECT_EQ(acknowledge_exhaustion(dir.file("none.state"), key, {}).error(), Error::kStateMissing);

  auto first = acknowledge_exhaustion(path, key, {});
  ASSERT_TRUE(first);
  auto again = acknowledge_exhaustion(path, key, {});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->generation, first->generation) << "acknowledging twice writes once";
  AdoptOptions adopt;
  ASSERT_TRUE(adopt_state_file(path, adopt));
  auto info = read_state_file(path);
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->exhaustion_acknowledged) << "adoption keeps it";
  auto h = open();
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->take(1));
}

TEST(ExhaustionFormat, TheFlagsAndTRoundTripAndALargeTIsClamped) {
  format::Slot s;
  s.generation = 3;
  s.next = 1;
  s.max_signatures = 100;
  s.key_id = make_key(1);
  s.flags = format::kFlagExhaustionAcknowledged;
  s.record_low_signatures_warning(std::uint64_t{1} << 40);
  EXPECT_EQ(s.threshold, 0xffffffffu);
  format::Block block;
  format::encode_slot(s, block);
  format::Slot back;
  ASSERT_EQ(format::decode_slot(std::span<const std::uint8_t, format::kBlockBytes>(block.data(), block.size()), back),
            format::SlotStatus::kValid);
  EXPECT_EQ(back, s);
  EXPECT_TRUE(back.exhaustion_acknowledged());
  EXPECT_EQ(back.low_signatures_warning(), 0xffffffffu);
}

// The gate as an index (a fleet host tests the indices the cluster grants against it): a
// reservation [next, next + count) waits exactly when awaits_acknowledgement(count) says so, for
// every position, size, T (the default, 0, one larger than the key), acknowledgement and lease.
TEST(ExhaustionFormat, TheGateAsAnIndexAgreesWithAwaitsAcknowledgement) {
  for (const std::uint64_t max : {1u, 2u, 10u, 37u, 1000u}) {
    for (const std::uint64_t t : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{3}, kDefaultLowSignaturesWarning, std::uint64_t{5000}}) {
      for (const std::uint32_t flags : {0u, format::kFlagExhaustionAcknowledged, format::kFlagLease}) {
        format::Slot s;
        s.max_signatures = max;
        s.flags = flags;
        s.record_low_signatures_warning(t);
        const std::uint64_t gate = s.acknowledgement_gate();
        for (s.next = 0; s.next < max; ++s.next) {
          for (std::uint64_t count = 1; count <= max - s.next; ++count) {
            ASSERT_EQ(s.next + count > gate, s.awaits_acknowledgement(count))
                << "max " << max << " T " << t << " flags " << flags << " next " << s.next << " count " << count;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace klms::state
