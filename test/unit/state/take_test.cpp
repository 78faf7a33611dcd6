// Handing out indices inside one process: exhaustion (§5), fail-closed arithmetic, reservations
// (§8), one handle per file (§9), threads (§1, §6), and durable-before-release with the in-process
// failure hook (§2).
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "state/store.h"
#include "test/unit/state/state_test_util.h"

namespace klms::state {
namespace {

using test::state_fixture::make_key;
using test::state_fixture::TempDir;

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

struct TakeTest : ::testing::Test {
  TempDir dir;
  std::string path = dir.file("key.state");
  KeyId key = make_key(3);

  void TearDown() override { inject_state_write_failure(0, false); }
  // Acknowledged (docs/state.md §5): these tests run keys to their end; the gate has its own tests
  // (exhaustion_test.cpp).
  std::shared_ptr<StateHandle> create_and_open(std::uint64_t max) {
    EXPECT_EQ(create_state_file(path, key, max, {}), Error::kOk);
    EXPECT_TRUE(acknowledge_exhaustion(path, key, {}));
    auto h = StateHandle::open(path, key, {});
    EXPECT_TRUE(h) << describe(h.error());
    return h ? *h : nullptr;
  }
  std::uint64_t file_next() {
    auto info = read_state_file(path);
    EXPECT_TRUE(info);
    return info ? info->next : 0;
  }
};

TEST_F(TakeTest, ExactlyMaxIndicesThenExhausted) {
  auto h = create_and_open(32);
  ASSERT_TRUE(h);
  for (std::uint64_t i = 0; i < 32; ++i) {
    auto lease = h->take(1);
    ASSERT_TRUE(lease) << i << ": " << describe(lease.error());
    EXPECT_TRUE(lease->valid());
    EXPECT_EQ(lease->consume(), i);
    EXPECT_FALSE(lease->valid());
  }
  EXPECT_EQ(h->take(1).error(), Error::kExhausted);
  EXPECT_EQ(h->take(1).error(), Error::kExhausted) << "and stays so";
  EXPECT_FALSE(h->poisoned());
  auto info = h->info();
  ASSERT_TRUE(info);
  EXPECT_EQ(info->next, 32u);
  EXPECT_TRUE(info->exhausted());
  EXPECT_EQ(info->remaining(), 0u);
  EXPECT_EQ(h->remaining_signatures().value(), 0u);
}

// docs/state.md §1, §6: threads of one process never share an index (the file mutex, one handle).
TEST_F(TakeTest, ThreadsNeverShareAnIndex) {
  auto h = create_and_open(4000);
  ASSERT_TRUE(h);
  std::mutex m;
  std::vector<std::uint64_t> all;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::uint64_t> mine;
      for (int i = 0; i < 200; ++i) {
        auto lease = h->take(t % 2 == 0 ? 1 : 7);  // single indices and reservations side by side
        if (!lease) break;
        mine.push_back(lease->consume());
      }
      std::lock_guard g(m);
      all.insert(all.end(), mine.begin(), mine.end());
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(all.size(), 1600u);
  const std::set<std::uint64_t> distinct(all.begin(), all.end());
  EXPECT_EQ(distinct.size(), all.size()) << "an index was handed out twice";
  EXPECT_GE(file_next(), *std::max_element(all.begin(), all.end()) + 1) << "the file is behind an index handed out";
}

// docs/state.md §8: a reservation of N is one durable write; its indices come from memory.
TEST_F(TakeTest, ReservationIsOneWriteAndServedFromMemory) {
  auto h = create_and_open(100);
  ASSERT_TRUE(h);
  ASSERT_EQ(h->take(10).value().consume(), 0u);
  EXPECT_EQ(file_next(), 10u) << "the whole batch is recorded at once";
  EXPECT_EQ(h->reserved_unused(), 9u);
  // The second write would fail: every index of the reservation still comes, from memory.
  inject_state_write_failure(1, false);
  for (std::uint64_t i = 1; i < 10; ++i) EXPECT_EQ(h->take(10).value().consume(), i);
  EXPECT_EQ(h->reserved_unused(), 0u);
  EXPECT_EQ(h->take(10).error(), Error::kStateWriteFailed) << "the next batch needs a write";
}

// docs/state.md §8: an unused reservation is lost with its handle, never handed out again.
TEST_F(TakeTest, ReservationIsLostWhenTheLastHandleGoes) {
  {
    auto h = create_and_open(100);
    ASSERT_TRUE(h);
    ASSERT_EQ(h->take(10).value().consume(), 0u);
  }
  auto again = StateHandle::open(path, key, {});
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)->take(1).value().consume(), 10u) << "1..9 were reserved by the handle that is gone";
}

TEST_F(TakeTest, ZeroBatchIsRejected) {
  auto h = create_and_open(100);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->take(0).error(), Error::kInvalidArgument);
  EXPECT_EQ(file_next(), 0u) << "nothing written";
}

// docs/state.md §9: every opener of one file in a process gets the same handle (also through
// another path to the same inode), so a reservation is never copied.
TEST_F(TakeTest, OneHandlePerFileAndProcess) {
  auto a = create_and_open(100);
  ASSERT_TRUE(a);
  auto b = StateHandle::open(path, key, {});
  ASSERT_TRUE(b);
  EXPECT_EQ(a.get(), b->get());
  const std::string link = dir.file("other-name.state");
  ASSERT_EQ(::link(path.c_str(), link.c_str()), 0);
  auto c = StateHandle::open(link, key, {});
  ASSERT_TRUE(c);
  EXPECT_EQ(a.get(), c->get()) << "a hard link to the same inode shares the handle";
  ASSERT_EQ(a->take(5).value().consume(), 0u);
  EXPECT_EQ((*c)->take(5).value().consume(), 1u) << "the reservation is shared, not copied";
}

// docs/state.md §8: asking for more than is left would silently burn the rest of the
// key; it is refused and the file is left as it was.
TEST_F(TakeTest, BatchBeyondWhatIsLeftIsRefused) {
  auto h = create_and_open(32);
  ASSERT_TRUE(h);
  std::vector<std::uint64_t> file_next_after_reservation;
  for (std::uint64_t i = 0; i < 30; ++i) {
    auto lease = h->take(10);
    ASSERT_TRUE(lease) << i;
    EXPECT_EQ(lease->index(), i);
    if (i % 10 == 0) file_next_after_reservation.push_back(file_next());
  }
  EXPECT_EQ(file_next_after_reservation, (std::vector<std::uint64_t>{10, 20, 30}));
  EXPECT_EQ(h->take(10).error(), Error::kReserveTooLarge);
  EXPECT_EQ(h->take(3).error(), Error::kReserveTooLarge);
  EXPECT_EQ(file_next(), 30u) << "a refused reservation writes nothing";
  EXPECT_FALSE(h->poisoned());
  EXPECT_EQ(h->take(2)->index(), 30u);
  EXPECT_EQ(h->take(2)->index(), 31u);
  EXPECT_EQ(h->take(1).error(), Error::kExhausted);
}

TEST_F(TakeTest, BatchAboveTheLimitIsRefused) {
  auto h = create_and_open(std::uint64_t{1} << 20);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->take(kMaxReserve + 1).error(), Error::kReserveTooLarge);
  EXPECT_EQ(file_next(), 0u);
  auto lease = h->take(kMaxReserve);
  ASSERT_TRUE(lease);
  EXPECT_EQ(file_next(), kMaxReserve);
}

TEST_F(TakeTest, NearTwoToTheSixtyFourFailsClosed) {
  ASSERT_EQ(create_state_file(path, key, 1, {}), Error::kOk);
  format::Slot slot;
  slot.generation = 10;
  slot.next = kU64Max - 3;
  slot.max_signatures = kU64Max;
  slot.key_id = key;
  slot.flags = format::kFlagExhaustionAcknowledged;  // its last indices are what this test takes
  test::state_fixture::write_crafted_state(path, slot);
  auto h = StateHandle::open(path, key, {});
  ASSERT_TRUE(h) << describe(h.error());
  EXPECT_EQ((*h)->remaining_signatures().value(), 3u);
  EXPECT_EQ((*h)->take(kU64Max).error(), Error::kReserveTooLarge) << "a batch that would wrap is refused";
  EXPECT_EQ((*h)->take(4).error(), Error::kReserveTooLarge);
  for (std::uint64_t i = kU64Max - 3; i < kU64Max; ++i) {
    auto lease = (*h)->take(1);
    ASSERT_TRUE(lease) << describe(lease.error());
    EXPECT_EQ(lease->index(), i);
  }
  EXPECT_EQ(file_next(), kU64Max);
  EXPECT_EQ((*h)->take(kMaxReserve).error(), Error::kExhausted);
  EXPECT_EQ((*h)->take(1).error(), Error::kExhausted);
}

TEST_F(TakeTest, GenerationOverflowFailsClosed) {
  ASSERT_EQ(create_state_file(path, key, 1, {}), Error::kOk);
  format::Slot slot;
  slot.generation = kU64Max;
  slot.next = 0;
  slot.max_signatures = 100;
  slot.key_id = key;
  test::state_fixture::write_crafted_state(path, slot);
  auto h = StateHandle::open(path, key, {});
  ASSERT_TRUE(h);
  EXPECT_EQ((*h)->take(1).error(), Error::kIndexOverflow);
  EXPECT_EQ(adopt_state_file(path, key), Error::kIndexOverflow);
}

// docs/state.md invariant 7: each reservation writes its slot into both blocks, in place (same
// inode, same hard links), so at rest both blocks say the same and one damaged block loses nothing.
TEST_F(TakeTest, WritesBothBlocksInPlace) {
  auto h = create_and_open(1000);
  ASSERT_TRUE(h);
  struct stat before {};
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  const std::string link = dir.file("link.state");
  ASSERT_EQ(::link(path.c_str(), link.c_str()), 0);
  auto raw = test::state_fixture::decode_file(path);
  ASSERT_EQ(raw.valid(), 2);
  ASSERT_EQ(raw.slot[0], raw.slot[1]) << "creation writes both blocks alike";
  for (std::uint64_t i = 0; i < 6; ++i) {
    const format::Slot previous = raw.slot[0];
    ASSERT_TRUE(h->take(1));
    raw = test::state_fixture::decode_file(path);
    ASSERT_EQ(raw.valid(), 2);
    EXPECT_EQ(raw.slot[0], raw.slot[1]);
    EXPECT_EQ(raw.slot[0].generation, previous.generation + 1);
    EXPECT_EQ(raw.slot[0].next, previous.next + 1);
    EXPECT_EQ(raw.slot[0].version, format::kFormatVersion);
  }
  struct stat after {};
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_nlink, 2u);
  EXPECT_EQ(test::state_fixture::read_bytes(link), test::state_fixture::read_bytes(path));
}

struct PoisonCase {
  bool fail_in_fsync;
  const char* name;
};

class PoisonTest : public TakeTest, public ::testing::WithParamInterface<PoisonCase> {};

TEST_P(PoisonTest, FailedWriteReleasesNothingAndPoisons) {
  auto h = create_and_open(1000);
  ASSERT_TRUE(h);
  ASSERT_EQ(h->take(1)->index(), 0u);
  inject_state_write_failure(1, GetParam().fail_in_fsync);
  EXPECT_EQ(h->take(4).error(), Error::kStateWriteFailed);
  EXPECT_TRUE(h->poisoned());
  EXPECT_EQ(h->reserved_unused(), 0u);
  EXPECT_EQ(h->take(1).error(), Error::kStatePoisoned);
  EXPECT_EQ(h->take(1).error(), Error::kStatePoisoned) << "stays poisoned: no retry that might succeed";

  auto fresh = StateHandle::open(path, key, {});
  ASSERT_TRUE(fresh) << describe(fresh.error());
  EXPECT_NE(fresh->get(), h.get()) << "a poisoned handle is never handed out again";
  EXPECT_FALSE((*fresh)->poisoned());
  auto lease = (*fresh)->take(1);
  ASSERT_TRUE(lease) << describe(lease.error());
  // Write failure: nothing reached the file, index 1 is next. Fsync failure: the page may or may not
  // have reached the disk; either way 1..4 were never handed out.
  EXPECT_TRUE(lease->index() == 1u || lease->index() == 5u) << lease->index();
  EXPECT_EQ(h->take(1).error(), Error::kStatePoisoned) << "the old handle stays dead";
  auto again = StateHandle::open(path, key, {});
  EXPECT_EQ(again->get(), fresh->get());
}

INSTANTIATE_TEST_SUITE_P(State, PoisonTest,
                         ::testing::Values(PoisonCase{false, "write"}, PoisonCase{true, "fsync"}),
                         [](const auto& test_param) { return std::string(test_param.param.name); });

// Each reservation is two durable writes (one per block).
TEST_F(TakeTest, HookCountsWrites) {
  auto h = create_and_open(1000);
  ASSERT_TRUE(h);
  inject_state_write_failure(5, false);
  EXPECT_TRUE(h->take(1));
  EXPECT_TRUE(h->take(1));
  EXPECT_EQ(h->take(1).error(), Error::kStateWriteFailed);
  EXPECT_EQ(file_next(), 2u);
}

// A failure in the second write: the first block already says more, nothing was handed out, and
// the next handle goes on beyond it.
TEST_F(TakeTest, FailureBetweenTheTwoWritesHandsOutNothing) {
  auto h = create_and_open(1000);
  ASSERT_TRUE(h);
  ASSERT_EQ(h->take(1)->index(), 0u);
  inject_state_write_failure(2, false);
  EXPECT_EQ(h->take(3).error(), Error::kStateWriteFailed);
  EXPECT_EQ(h->reserved_unused(), 0u);
  auto raw = test::state_fixture::decode_file(path);
  ASSERT_EQ(raw.valid(), 2);
  EXPECT_NE(raw.slot[0], raw.slot[1]);
  auto fresh = StateHandle::open(path, key, {});
  ASSERT_TRUE(fresh);
  EXPECT_EQ((*fresh)->take(1)->index(), 4u);
}

TEST_F(TakeTest, AdoptionMakesOpenHandlesFailClosed) {
  auto h = create_and_open(1000);
  ASSERT_TRUE(h);
  ASSERT_TRUE(h->take(1));
  ASSERT_EQ(adopt_state_file(path, key), Error::kOk);
  EXPECT_EQ(h->take(1).error(), Error::kStateCopied) << "the instance changed under it";
  auto fresh = StateHandle::open(path, key, {});
  ASSERT_TRUE(fresh);
  EXPECT_NE(fresh->get(), h.get());
  EXPECT_EQ((*fresh)->take(1)->index(), 1u);
}

}  // namespace
}  // namespace klms::state
