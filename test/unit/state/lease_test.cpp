// Index leases (docs/state.md "Index leases"): the lease record of the format, lease_state_file's
// two steps and their failure at every write, signing within a lease only, leases of leases,
// copies of leases, and leasing while other threads reserve from the parent.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "hashes/families.h"
#include "state/file_format.h"
#include "state/store.h"
#include "test/unit/state/state_test_util.h"

namespace klms::state {
namespace {

using namespace test::state_fixture;
namespace sf = format;

LevelsDigest make_levels(std::uint8_t seed) {
  LevelsDigest d{};
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<std::uint8_t>(seed * 31 + i + 1);
  return d;
}

sf::Slot lease_slot() {
  sf::Slot s;
  s.flags = sf::kFlagLease;
  s.generation = 7;
  s.next = 105;
  s.max_signatures = 200;
  s.key_id = make_key(1);
  s.levels_digest = make_levels(1);
  s.device = 11;
  s.inode = 12;
  s.lease_start = 100;
  s.lease_end = 200;
  s.lease_depth = 2;
  for (std::size_t i = 0; i < s.parent_instance_id.size(); ++i) s.parent_instance_id[i] = static_cast<std::uint8_t>(0xa0 + i);
  for (std::size_t i = 0; i < s.instance_id.size(); ++i) s.instance_id[i] = static_cast<std::uint8_t>(i);
  return s;
}

sf::SlotStatus decode(const sf::Block& block, sf::Slot& out) {
  return sf::decode_slot(std::span<const std::uint8_t, sf::kBlockBytes>(block.data(), block.size()), out);
}

TEST(LeaseFormat, RoundTripsEveryLeaseField) {
  const sf::Slot s = lease_slot();
  sf::Block block;
  sf::encode_slot(s, block);
  sf::Slot back;
  ASSERT_EQ(decode(block, back), sf::SlotStatus::kValid);
  EXPECT_EQ(back, s);
  EXPECT_TRUE(back.is_lease());
  EXPECT_EQ(back.lease_start, 100u);
  EXPECT_EQ(back.lease_end, 200u);
  EXPECT_EQ(back.lease_depth, 2u);
  EXPECT_EQ(back.parent_instance_id, s.parent_instance_id);
  // Beyond the lease record the block stays zero.
  EXPECT_TRUE(std::all_of(block.begin() + sf::kLeaseSlotBytes, block.end(), [](std::uint8_t b) { return b == 0; }));
  // A key's own file has no lease record.
  sf::Slot plain = s;
  plain.flags = 0;
  plain.lease_start = plain.lease_end = 0;
  plain.lease_depth = 0;
  plain.parent_instance_id = {};
  sf::encode_slot(plain, block);
  EXPECT_TRUE(std::all_of(block.begin() + sf::kSlotBytes, block.end(), [](std::uint8_t b) { return b == 0; }));
  ASSERT_EQ(decode(block, back), sf::SlotStatus::kValid);
  EXPECT_FALSE(back.is_lease());
}

// A build without lease support (format 2, every flag unknown) checks bytes 0..175 against the
// checksum at 176, then refuses the flag: "unsupported version", never "corrupt" and never a
// signature. This build treats an unknown flag the same way.
TEST(LeaseFormat, ABuildWithoutLeasesRefusesALeaseAsUnsupported) {
  sf::Block block;
  sf::encode_slot(lease_slot(), block);
  std::uint8_t sum[32];
  hashes::sha256_portable_backend().digest(block.data(), sf::kChecksummedBytes, sum);
  EXPECT_EQ(std::memcmp(sum, block.data() + sf::kChecksummedBytes, 32), 0)
      << "the plain slot checksum must still verify for an older reader";
  std::uint32_t flags = 0;
  std::memcpy(&flags, block.data() + 12, 4);
  EXPECT_EQ(flags, sf::kFlagLease);

  sf::Slot unknown = lease_slot();
  unknown.flags = sf::kFlagLease | 2;  // a flag this build does not know, as LEASE is to an older one
  sf::encode_slot(unknown, block);
  sf::Slot out;
  EXPECT_EQ(decode(block, out), sf::SlotStatus::kUnsupportedVersion);
  sf::FileImage image;
  std::copy(block.begin(), block.end(), image.begin());
  std::copy(block.begin(), block.end(), image.begin() + sf::kBlockBytes);
  EXPECT_EQ(sf::select_current(image, sf::kFileBytes).error(), Error::kStateUnsupportedVersion);
}

TEST(LeaseFormat, EveryLeaseRecordByteMatters) {
  sf::Block block;
  sf::encode_slot(lease_slot(), block);
  for (std::size_t i = sf::kSlotBytes; i < sf::kLeaseSlotBytes; ++i) {
    sf::Block bad = block;
    bad[i] ^= 0x01;
    sf::Slot out;
    EXPECT_NE(decode(bad, out), sf::SlotStatus::kValid) << "byte " << i;
  }
}

TEST(LeaseFormat, ALeaseOutsideItsRangeIsImpossible) {
  auto status_of = [](const sf::Slot& s) {
    sf::Block block;
    sf::encode_slot(s, block);
    sf::Slot out;
    return decode(block, out);
  };
  sf::Slot s = lease_slot();
  s.next = 99;  // below its start
  EXPECT_EQ(status_of(s), sf::SlotStatus::kBadValues);
  s = lease_slot();
  s.max_signatures = 201;  // a maximum beyond its end
  EXPECT_EQ(status_of(s), sf::SlotStatus::kBadValues);
  s = lease_slot();
  s.lease_start = 200;  // empty range
  s.next = 200;
  EXPECT_EQ(status_of(s), sf::SlotStatus::kBadValues);
  s = lease_slot();
  s.lease_depth = 0;
  EXPECT_EQ(status_of(s), sf::SlotStatus::kBadValues);
  s = lease_slot();
  s.next = 200;  // exhausted is fine
  EXPECT_EQ(status_of(s), sf::SlotStatus::kValid);
}

TEST(LeaseFormat, BothSlotsMustAgreeOnTheLease) {
  sf::Slot older = lease_slot();
  sf::Slot newer = lease_slot();
  newer.generation = older.generation + 1;
  newer.next = older.next + 1;
  auto select = [](const sf::Slot& a, const sf::Slot& b) {
    sf::Block ba;
    sf::Block bb;
    sf::encode_slot(a, ba);
    sf::encode_slot(b, bb);
    sf::FileImage image;
    std::copy(ba.begin(), ba.end(), image.begin());
    std::copy(bb.begin(), bb.end(), image.begin() + sf::kBlockBytes);
    return sf::select_current(image, sf::kFileBytes);
  };
  auto ok = select(older, newer);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->slot, newer);
  sf::Slot other_range = newer;
  other_range.lease_start = 101;
  EXPECT_EQ(select(older, other_range).error(), Error::kStateCorrupt);
  sf::Slot not_a_lease = newer;
  not_a_lease.flags = 0;
  not_a_lease.lease_start = not_a_lease.lease_end = 0;
  not_a_lease.lease_depth = 0;
  not_a_lease.parent_instance_id = {};
  EXPECT_EQ(select(older, not_a_lease).error(), Error::kStateCorrupt);
}

struct LeaseTest : ::testing::Test {
  TempDir dir;
  TempDir other;  // "the other host": another state directory
  std::string parent = dir.file("key.state");
  KeyId key = make_key(9);
  LevelsDigest levels = make_levels(9);

  void SetUp() override {
    ASSERT_EQ(create_state_file(parent, key, 1000, {}, &levels), Error::kOk);
    auto h = StateHandle::open(parent, KeyBinding{key, levels, false}, {});
    ASSERT_TRUE(h);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*h)->take(1));
  }
  ~LeaseTest() override { inject_state_write_failure(0, false); }

  std::uint64_t next_of(const std::string& path) {
    auto info = read_state_file(path);
    EXPECT_TRUE(info) << path;
    return info ? info->next : 0;
  }
  // Every index a lease hands out, until it says exhausted.
  std::vector<std::uint64_t> drain(const std::string& path, std::size_t limit = ~std::size_t{0}) {
    std::vector<std::uint64_t> out;
    auto h = StateHandle::open(path, KeyBinding{key, levels, false}, {});
    EXPECT_TRUE(h) << describe(h.error());
    if (!h) return out;
    while (out.size() < limit) {
      auto lease = (*h)->take(1);
      if (!lease) {
        EXPECT_EQ(lease.error(), Error::kExhausted);
        break;
      }
      out.push_back(lease->index());
    }
    return out;
  }
};

TEST_F(LeaseTest, TheParentMovesPastTheRangeAndTheLeaseHoldsExactlyIt) {
  const std::string path = other.file("lease.state");
  auto made = lease_state_file(parent, path, 10, {});
  ASSERT_TRUE(made) << describe(made.error());
  EXPECT_EQ(made->parent.next, 13u);
  EXPECT_FALSE(made->parent.lease);
  EXPECT_EQ(next_of(parent), 13u);
  const StateInfo& l = made->lease;
  EXPECT_TRUE(l.lease);
  EXPECT_EQ(l.lease_start, 3u);
  EXPECT_EQ(l.lease_end, 13u);
  EXPECT_EQ(l.next, 3u);
  EXPECT_EQ(l.max_signatures, 13u);
  EXPECT_EQ(l.remaining(), 10u);
  EXPECT_EQ(l.lease_depth, 1u);
  EXPECT_EQ(l.key_id, key);
  EXPECT_EQ(l.levels_digest, levels);
  EXPECT_TRUE(l.never_used());
  EXPECT_FALSE(l.looks_copied());
  const auto parent_info = read_state_file(parent);
  ASSERT_TRUE(parent_info);
  EXPECT_EQ(l.parent_instance_id, parent_info->instance_id);
  EXPECT_NE(l.instance_id, parent_info->instance_id);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_size, static_cast<off_t>(sf::kFileBytes));

  {
    auto h = StateHandle::open(path, KeyBinding{key, levels, false}, {});
    ASSERT_TRUE(h);
    EXPECT_EQ((*h)->take(11).error(), Error::kReserveTooLarge) << "a reservation cannot pass the lease's end";
    auto r = (*h)->remaining_signatures();
    ASSERT_TRUE(r);
    EXPECT_EQ(*r, 10u);
  }
  const auto indices = drain(path);
  std::vector<std::uint64_t> expected;
  for (std::uint64_t q = 3; q < 13; ++q) expected.push_back(q);
  EXPECT_EQ(indices, expected) << "exactly its range, each once, then exhausted";
  // The parent goes on after the range.
  auto h = StateHandle::open(parent, KeyBinding{key, levels, false}, {});
  ASSERT_TRUE(h);
  EXPECT_EQ((*h)->take(1)->index(), 13u);
}

TEST_F(LeaseTest, RefusesWhatSigningRefusesAndChecksTheTargetFirst) {
  const std::string path = other.file("lease.state");
  EXPECT_EQ(lease_state_file(parent, path, 0, {}).error(), Error::kInvalidArgument);
  EXPECT_EQ(lease_state_file(parent, path, 998, {}).error(), Error::kReserveTooLarge);
  EXPECT_EQ(lease_state_file(parent, "relative.state", 1, {}).error(), Error::kStatePathInvalid);
  EXPECT_EQ(lease_state_file(parent, other.file("no-such-dir/x.state"), 1, {}).error(), Error::kStateDirectoryMissing);
  write_new_file(path, {1, 2, 3});
  EXPECT_EQ(lease_state_file(parent, path, 1, {}).error(), Error::kStateExists);
  ASSERT_EQ(::unlink(path.c_str()), 0);
  EXPECT_EQ(next_of(parent), 3u) << "no refusal above cost the parent an index";

  // A copied parent gives out no lease, as it gives out no signature.
  const std::string copy = dir.file("copy.state");
  copy_to_new_file(parent, copy);
  EXPECT_EQ(lease_state_file(copy, path, 1, {}).error(), Error::kStateCopied);
  EXPECT_EQ(lease_state_file(dir.file("missing.state"), path, 1, {}).error(), Error::kStateMissing);
  // A version-1-like parent not bound to its levels: the lease could not bind them.
  const std::string unbound = dir.file("unbound.state");
  ASSERT_EQ(create_state_file(unbound, key, 10, {}), Error::kOk);
  EXPECT_EQ(lease_state_file(unbound, path, 1, {}).error(), Error::kInvalidArgument);
  EXPECT_EQ(next_of(unbound), 0u);
  EXPECT_NE(::access(path.c_str(), F_OK), 0);

  // The lease is bound to the key and its levels.
  ASSERT_TRUE(lease_state_file(parent, path, 5, {}));
  EXPECT_EQ(StateHandle::open(path, KeyBinding{make_key(10), levels, false}, {}).error(), Error::kStateForeign);
  const LevelsDigest altered = make_levels(10);
  EXPECT_EQ(StateHandle::open(path, KeyBinding{key, altered, false}, {}).error(), Error::kStateParamsMismatch);
  // Exhausted parent (acknowledged: the rest includes its last indices, docs/state.md §5).
  ASSERT_TRUE(acknowledge_exhaustion(parent, key, {}));
  ASSERT_TRUE(lease_state_file(parent, other.file("rest.state"), 1000 - 8, {}));
  EXPECT_EQ(lease_state_file(parent, other.file("more.state"), 1, {}).error(), Error::kExhausted);
}

TEST_F(LeaseTest, ALeaseCanBeLeasedFurtherAndRangesStayDisjoint) {
  const std::string l1 = other.file("l1.state");
  const std::string l2 = other.file("l2.state");
  const std::string l3 = dir.file("l3.state");
  ASSERT_TRUE(lease_state_file(parent, l1, 20, {}));  // [3, 23)
  {
    auto h = StateHandle::open(l1, KeyBinding{key, levels, false}, {});
    ASSERT_TRUE(h);
    EXPECT_EQ((*h)->take(1)->index(), 3u);
  }
  auto sub = lease_state_file(l1, l2, 5, {});  // [4, 9)
  ASSERT_TRUE(sub) << describe(sub.error());
  EXPECT_EQ(sub->lease.lease_start, 4u);
  EXPECT_EQ(sub->lease.lease_end, 9u);
  EXPECT_EQ(sub->lease.lease_depth, 2u);
  EXPECT_EQ(sub->parent.next, 9u);
  EXPECT_TRUE(sub->parent.lease);
  EXPECT_EQ(lease_state_file(l1, l3, 15, {}).error(), Error::kReserveTooLarge) << "only 14 left in l1";
  auto subsub = lease_state_file(l2, l3, 5, {});  // all of l2
  ASSERT_TRUE(subsub);
  EXPECT_EQ(subsub->lease.lease_depth, 3u);
  EXPECT_TRUE(subsub->parent.exhausted());

  std::set<std::uint64_t> all = {0, 1, 2, 3};  // signed by the parent and l1 above
  for (const std::string& path : {l1, l2, l3, parent}) {
    for (std::uint64_t q : drain(path, path == parent ? 20 : ~std::size_t{0})) {
      EXPECT_TRUE(all.insert(q).second) << "index " << q << " twice (" << path << ")";
    }
  }
  for (std::uint64_t q = 0; q < 23; ++q) EXPECT_EQ(all.count(q), 1u) << q;
}

TEST_F(LeaseTest, ACopiedLeaseIsRefusedUntilAdoptedAndKeepsItsRange) {
  const std::string here = dir.file("lease.state");
  const std::string there = other.file("lease.state");
  ASSERT_TRUE(lease_state_file(parent, here, 10, {}));
  copy_to_new_file(here, there);
  EXPECT_EQ(StateHandle::open(there, KeyBinding{key, levels, false}, {}).error(), Error::kStateCopied);
  ASSERT_EQ(::unlink(here.c_str()), 0);  // the original destroyed
  ASSERT_EQ(adopt_state_file(there, key), Error::kOk);
  const auto info = read_state_file(there);
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->lease);
  EXPECT_EQ(info->lease_start, 3u);
  EXPECT_EQ(info->lease_end, 13u);
  AdoptOptions advance;
  advance.advance = 1000;  // clamped at the lease's end, never beyond
  auto adopted = adopt_state_file(there, advance);
  ASSERT_TRUE(adopted);
  EXPECT_EQ(adopted->next, 13u);
  EXPECT_TRUE(adopted->exhausted());
}

TEST_F(LeaseTest, DiscardRemovesOnlyALeaseThatNeverSigned) {
  const std::string path = other.file("lease.state");
  ASSERT_TRUE(lease_state_file(parent, path, 10, {}));
  const std::string used = other.file("used.state");
  ASSERT_TRUE(lease_state_file(parent, used, 10, {}));
  {
    auto h = StateHandle::open(used, KeyBinding{key, levels, false}, {});
    ASSERT_TRUE(h);
    ASSERT_TRUE((*h)->take(1));
  }
  EXPECT_EQ(discard_unused_state_file(used, {}), Error::kStateExists);
  EXPECT_EQ(discard_unused_state_file(path, {}), Error::kOk);
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
  EXPECT_EQ(next_of(parent), 23u) << "the discarded range is lost, not returned";
}

// Each durable write of leasing fails in turn (parent's first block, its second block, the lease
// image; in write and in fsync): whatever the outcome, no index is both in a lease file and still
// ahead in the parent.
TEST_F(LeaseTest, AFailureAtEveryWriteNeverLeavesAnIndexInBoth) {
  int n = 0;
  for (bool in_fsync : {false, true}) {
    for (unsigned k = 1; k <= 4; ++k) {
      SCOPED_TRACE("write " + std::to_string(k) + (in_fsync ? " fsync" : " write"));
      const std::string path = other.file("lease" + std::to_string(n++) + ".state");
      const std::uint64_t before = next_of(parent);
      bool lost = false;
      std::uint64_t start = 0;
      LeaseOptions options;
      options.range_lost = &lost;
      options.range_start = &start;
      inject_state_write_failure(k, in_fsync);
      auto made = lease_state_file(parent, path, 10, options);
      inject_state_write_failure(0, false);
      const std::uint64_t after = next_of(parent);
      const bool exists = ::access(path.c_str(), F_OK) == 0;
      if (k == 4) {  // only three writes: nothing fails
        ASSERT_TRUE(made);
        EXPECT_EQ(after, before + 10);
        continue;
      }
      ASSERT_FALSE(made);
      EXPECT_EQ(made.error(), Error::kStateWriteFailed);
      if (k <= 2) {
        // The parent's write failed: the parent may or may not have moved (k == 2: the first
        // block did), but no lease exists.
        EXPECT_FALSE(lost);
        EXPECT_FALSE(exists);
        EXPECT_TRUE(after == before || after == before + 10) << after;
      } else {
        EXPECT_TRUE(lost);
        EXPECT_EQ(start, before);
        EXPECT_FALSE(exists) << "a failed creation removes its half-made file";
        EXPECT_EQ(after, before + 10) << "the range stays consumed in the parent";
      }
      if (exists) {
        auto info = read_state_file(path);
        if (info) {
          EXPECT_LE(info->lease_end, after);
        }
      }
      // Whatever happened, the parent signs on (a fresh handle: the failed one is not ours).
      auto h = StateHandle::open(parent, KeyBinding{key, levels, false}, {});
      ASSERT_TRUE(h) << describe(h.error());
      auto q = (*h)->take(1);
      ASSERT_TRUE(q) << describe(q.error());
      EXPECT_GE(q->index(), after);
    }
  }
}

// Threads reserving from the parent (one shared handle, batches of 3, at most 300 reservations
// each) while another thread cuts leases: every index is given out once, as a reservation or inside
// a lease.
TEST_F(LeaseTest, LeasingWhileOtherThreadsSignOnTheParent) {
  const std::string big = dir.file("big.state");
  ASSERT_EQ(create_state_file(big, key, std::uint64_t{1} << 20, {}, &levels), Error::kOk);
  auto h = StateHandle::open(big, KeyBinding{key, levels, false}, {});
  ASSERT_TRUE(h);
  std::mutex mutex;
  std::vector<std::uint64_t> signed_indices;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  std::vector<Error> errors;
  std::atomic<bool> stop{false};
  std::vector<std::thread> signers;
  for (int t = 0; t < 3; ++t) {
    signers.emplace_back([&] {
      for (int i = 0; i < 300 && !stop.load(); ++i) {
        auto lease = (*h)->take(3);
        std::lock_guard guard(mutex);
        if (!lease) {
          errors.push_back(lease.error());
          break;
        }
        signed_indices.push_back(lease->index());
      }
    });
  }
  for (int i = 0; i < 20; ++i) {
    std::string name = "c";
    name += std::to_string(i);
    name += ".state";
    auto made = lease_state_file(big, other.file(name), 7, {});
    std::lock_guard guard(mutex);
    if (!made) {
      errors.push_back(made.error());
      break;
    }
    ranges.emplace_back(made->lease.lease_start, made->lease.lease_end);
  }
  stop.store(true);
  for (auto& t : signers) t.join();
  for (Error e : errors) ADD_FAILURE() << describe(e);
  EXPECT_EQ(ranges.size(), 20u);
  EXPECT_GT(signed_indices.size(), 0u);
  std::set<std::uint64_t> seen(signed_indices.begin(), signed_indices.end());
  ASSERT_EQ(seen.size(), signed_indices.size()) << "a signer index twice";
  for (const auto& [a, b] : ranges) {
    EXPECT_EQ(b - a, 7u);
    for (std::uint64_t q = a; q < b; ++q) EXPECT_TRUE(seen.insert(q).second) << "index " << q << " in a lease and signed";
  }
  ASSERT_FALSE(seen.empty());
  EXPECT_LT(*seen.rbegin(), next_of(big));
}

#ifdef KLMS_STATE_TOOL
TEST_F(LeaseTest, ToolLeasesAndShowsALease) {
  const std::string path = other.file("tool.state");
  auto r = run_process({KLMS_STATE_TOOL, "lease", "--count", "10", parent, path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("leased indices [3, 13)"), std::string::npos) << r.err;
  r = run_process({KLMS_STATE_TOOL, "show", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("LEASE of indices [3, 13) (10 indices), depth 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("remaining:        10 (of this lease"), std::string::npos) << r.out;
  r = run_process({KLMS_STATE_TOOL, "show", parent});
  EXPECT_NE(r.out.find("key state file (not a lease)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("next index:       13"), std::string::npos) << r.out;
  r = run_process({KLMS_STATE_TOOL, "lease", "--count", "10", parent, path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
  r = run_process({KLMS_STATE_TOOL, "lease", parent, path});
  EXPECT_EQ(r.exit_code, 2) << "--count is required";
}
#endif

}  // namespace
}  // namespace klms::state
