// The witness gate (state/witness_gate.h, docs/state.md "The witness") over a fake counter behind
// the module ABI (fake_witness_tpm.c): every state a file and its counter can be in — agree,
// behind (the file restored: the counter is ahead), ahead (the file's last write outran its
// increments), other (another counter at the handle), missing, unreachable — for each reservation
// size, through the state store's own entry points (create, open, take, display). No swtpm, no
// etcd: milliseconds. The real module against swtpm is test/recipes/witness_*.t.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "state/store.h"
#include "state/witness_module_abi.h"

#include "test/unit/state/witness_gate/fake_witness_tpm.h"

namespace klms::state {
namespace {

// The fake, loaded from the directory the state store loads witness modules from: the same
// object the store's dlopen finds, so the test and the store see the same counters.
klms_fake_tpm& fake() {
  static klms_fake_tpm* control = [] {
    ::setenv("KLMS_WITNESS_DIR", KLMS_FAKE_WITNESS_DIR, 1);
    const std::string path = std::string(KLMS_FAKE_WITNESS_DIR) + "/" + KLMS_WITNESS_TPM_MODULE;
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw std::runtime_error(std::string("dlopen ") + path + ": " + ::dlerror());
    auto fn = reinterpret_cast<klms_fake_tpm* (*)()>(::dlsym(handle, "klms_fake_tpm"));
    if (fn == nullptr) throw std::runtime_error("no klms_fake_tpm in " + path);
    return fn();
  }();
  return *control;
}

klms_fake_counter* counter_at(std::uint32_t nv_index) {
  for (auto& c : fake().counters) {
    if (c.defined != 0 && c.nv_index == nv_index) return &c;
  }
  return nullptr;
}

// A 0700 directory inside a 0700 directory of ours (a state directory must not be writable by others).
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string outer = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/klms-gate-XXXXXX";
    if (::mkdtemp(outer.data()) == nullptr) throw std::runtime_error("mkdtemp");
    outer_ = outer;
    path_ = outer_ + "/state";
    if (::mkdir(path_.c_str(), 0700) != 0) throw std::runtime_error("mkdir");
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(outer_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string outer_, path_;
};

constexpr std::uint64_t kMax = std::uint64_t{1} << 20;

KeyId key_of(std::uint64_t n) {
  KeyId id{};
  for (std::size_t i = 0; i < 8; ++i) id[i] = static_cast<std::uint8_t>(n >> (8 * i));
  id[31] = 0xa7;
  return id;
}

StateOptions witnessed() {
  StateOptions o;
  o.witness = WitnessKind::kTpm;
  o.witness_config.tpm_tcti = "fake";  // the fake ignores where
  return o;
}

// One witnessed file: created (binding a fake counter), its first `size` indices reserved.
struct Case {
  TempDir dir;
  std::string path;
  KeyId key;
  StateOptions options = witnessed();
  std::uint32_t nv_index = 0;
};

class WitnessGate : public ::testing::TestWithParam<std::uint64_t> {
 protected:
  void SetUp() override {
    fake().fail_with = 0;
    fake().increments_left = -1;
    for (auto& c : fake().counters) c.defined = 0;
  }
  void TearDown() override { SetUp(); }

  // A file created and bound to a fresh counter; `reserve` indices taken by one reservation.
  std::unique_ptr<Case> make(std::uint64_t reserve) {
    static std::uint64_t serial = 0;
    auto c = std::make_unique<Case>();
    c->path = c->dir.file("k.state");
    c->key = key_of(++serial);
    const std::uint64_t defines = fake().defines;
    EXPECT_EQ(create_state_file(c->path, c->key, kMax, c->options), Error::kOk);
    EXPECT_EQ(fake().defines, defines + 1) << "creating a witnessed file defines its counter";
    auto info = read_state_file(c->path, c->options);
    EXPECT_TRUE(info);
    if (!info) return c;
    c->nv_index = info->witness.record.nv_index;
    EXPECT_NE(counter_at(c->nv_index), nullptr);
    if (reserve > 0) {
      auto h = StateHandle::open(c->path, c->key, c->options);
      EXPECT_TRUE(h) << describe(h.error());
      if (!h) return c;
      auto lease = (*h)->take(reserve);
      EXPECT_TRUE(lease);
      if (lease) {
        EXPECT_EQ(lease->index(), 0u);
      }
    }
    return c;
  }

  // What a display read says of the file and its witness.
  static WitnessStatus shown(const Case& c) {
    auto info = inspect_state_file(c.path, c.options);
    EXPECT_TRUE(info);
    return info ? info->witness : WitnessStatus{};
  }
  static std::uint64_t file_next(const Case& c) {
    auto info = inspect_state_file(c.path);
    return info ? info->next : ~std::uint64_t{0};
  }
  // The witnessed high-water mark: the counter minus the base the file recorded.
  static std::uint64_t high_water(const Case& c) {
    auto info = inspect_state_file(c.path);
    const klms_fake_counter* counter = counter_at(c.nv_index);
    if (!info || counter == nullptr) return ~std::uint64_t{0};
    return counter->value - info->witness.record.base;
  }
  // Opens the file and takes `n` indices (one reservation): the first index, or the error.
  static Result<std::uint64_t> take(const Case& c, std::uint64_t n) {
    auto h = StateHandle::open(c.path, c.key, c.options);
    if (!h) return h.error();
    auto lease = (*h)->take(n);
    if (!lease) return lease.error();
    return lease->index();
  }
};

// hw == next after each reservation: the counter moved by exactly the reservation, with one call.
TEST_P(WitnessGate, AgreeAfterEachReservation) {
  const std::uint64_t size = GetParam();
  auto c = make(0);
  for (std::uint64_t round = 0; round < 3; ++round) {
    const std::uint64_t calls = fake().increment_calls, steps = fake().increments;
    auto first = take(*c, size);
    ASSERT_TRUE(first) << describe(first.error());
    EXPECT_EQ(*first, round * size) << "each reservation starts where the last ended";
    EXPECT_EQ(fake().increment_calls, calls + 1) << "one increment call per reservation";
    EXPECT_EQ(fake().increments, steps + size) << "the counter advanced by the reservation's size";
    EXPECT_EQ(file_next(*c), (round + 1) * size);
    EXPECT_EQ(high_water(*c), (round + 1) * size);
    const WitnessStatus s = shown(*c);
    EXPECT_EQ(s.state, WitnessState::kAgrees) << witness_state_name(s.state);
    EXPECT_EQ(s.high_water, (round + 1) * size);
  }
}

// hw > next: the file was restored or copied (another copy reserved after it). Refused at open and
// for a handle opened before: nothing handed out, nothing written, the counter untouched.
TEST_P(WitnessGate, BehindIsRefused) {
  const std::uint64_t size = GetParam();
  auto c = make(size);
  auto early = StateHandle::open(c->path, c->key, c->options);
  ASSERT_TRUE(early);
  counter_at(c->nv_index)->value += 3;  // another copy reserved three more
  const std::uint64_t steps = fake().increments;
  auto opened = StateHandle::open(c->path, c->key, c->options);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error(), Error::kStateBehindWitness) << describe(opened.error());
  if (size == 1) {  // nothing left in memory: the next take reserves, and settle refuses
    auto lease = (*early)->take(size);
    ASSERT_FALSE(lease);
    EXPECT_EQ(lease.error(), Error::kStateBehindWitness) << describe(lease.error());
  }
  EXPECT_EQ(file_next(*c), size);
  EXPECT_EQ(fake().increments, steps) << "a refusal never advances the counter";
  const WitnessStatus s = shown(*c);
  EXPECT_EQ(s.state, WitnessState::kBehind) << witness_state_name(s.state);
  EXPECT_EQ(s.difference, 3u);
}

// hw < next: the reservation's file write happened, its increments stopped part-way. Nothing of it
// is handed out; the next reservation completes the increments first, then starts after it.
TEST_P(WitnessGate, AheadIsCompletedThenReserved) {
  const std::uint64_t size = GetParam();
  auto c = make(0);
  fake().increments_left = static_cast<std::int64_t>(size / 2);
  auto lost = take(*c, size);
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error(), Error::kWitnessUnreachable) << describe(lost.error());
  EXPECT_EQ(file_next(*c), size) << "the file was written before the increments";
  EXPECT_EQ(high_water(*c), size / 2);
  WitnessStatus s = shown(*c);
  EXPECT_EQ(s.state, WitnessState::kPending) << witness_state_name(s.state);
  EXPECT_EQ(s.difference, size - size / 2);

  fake().increments_left = -1;
  auto next = take(*c, size);
  ASSERT_TRUE(next) << describe(next.error());
  EXPECT_EQ(*next, size) << "no index of the interrupted reservation is handed out";
  EXPECT_EQ(file_next(*c), 2 * size);
  EXPECT_EQ(high_water(*c), 2 * size);
  s = shown(*c);
  EXPECT_EQ(s.state, WitnessState::kAgrees) << witness_state_name(s.state);
}

// Another counter at the file's handle (released and defined again, by us or anybody): refused.
TEST_P(WitnessGate, OtherCounterIsRefused) {
  const std::uint64_t size = GetParam();
  auto c = make(size);
  klms_fake_counter* counter = counter_at(c->nv_index);
  ASSERT_NE(counter, nullptr);
  counter->name[33] ^= 0x01;  // same handle and value, another name
  auto first = take(*c, size);
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error(), Error::kWitnessMismatch) << describe(first.error());
  EXPECT_EQ(file_next(*c), size);
  const WitnessStatus s = shown(*c);
  EXPECT_EQ(s.state, WitnessState::kDifferent) << witness_state_name(s.state);

  // A counter of the right name beyond the key's maximum is no high-water mark of this file either.
  counter->name[33] ^= 0x01;
  counter->value += kMax;
  auto beyond = take(*c, size);
  ASSERT_FALSE(beyond);
  EXPECT_EQ(beyond.error(), Error::kWitnessMismatch) << describe(beyond.error());
  EXPECT_EQ(shown(*c).state, WitnessState::kDifferent);
}

// No counter at the handle (released, the TPM cleared, another host's file): refused.
TEST_P(WitnessGate, MissingIsRefused) {
  const std::uint64_t size = GetParam();
  auto c = make(size);
  counter_at(c->nv_index)->defined = 0;
  auto first = take(*c, size);
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error(), Error::kWitnessMissing) << describe(first.error());
  EXPECT_EQ(file_next(*c), size);
  EXPECT_EQ(shown(*c).state, WitnessState::kMissing);
}

// No answer (no TPM, a deadline): refused at open, and for an open handle before anything is
// written; the display says so.
TEST_P(WitnessGate, UnreachableIsRefused) {
  const std::uint64_t size = GetParam();
  for (int status : {KLMS_WITNESS_UNREACHABLE, KLMS_WITNESS_DEADLINE}) {
    SCOPED_TRACE(status);
    auto c = make(size);
    auto early = StateHandle::open(c->path, c->key, c->options);
    ASSERT_TRUE(early);
    const std::uint64_t steps = fake().increments;
    fake().fail_with = status;
    auto opened = StateHandle::open(c->path, c->key, c->options);
    ASSERT_FALSE(opened);
    EXPECT_EQ(opened.error(), Error::kWitnessUnreachable) << describe(opened.error());
    if (size == 1) {
      auto lease = (*early)->take(size);
      ASSERT_FALSE(lease);
      EXPECT_EQ(lease.error(), Error::kWitnessUnreachable) << describe(lease.error());
    }
    EXPECT_EQ(file_next(*c), size) << "nothing written while the witness does not answer";
    EXPECT_EQ(shown(*c).state, WitnessState::kUnreachable);
    fake().fail_with = 0;
    EXPECT_EQ(fake().increments, steps);
    auto again = take(*c, size);
    ASSERT_TRUE(again) << describe(again.error());
    EXPECT_EQ(*again, size) << "once it answers again, signing goes on where it stopped";
  }
}

// A reservation larger than the key has left is refused before the witness is asked.
TEST(WitnessGateLimits, TooLargeAReservationAsksNoWitness) {
  (void)fake();  // loaded (and KLMS_WITNESS_DIR set) before the store looks for a module
  TempDir dir;
  const std::string path = dir.file("small.state");
  const KeyId key = key_of(0xffff);
  ASSERT_EQ(create_state_file(path, key, 64, witnessed()), Error::kOk);
  auto h = StateHandle::open(path, key, witnessed());
  ASSERT_TRUE(h);
  const std::uint64_t calls = fake().increment_calls;
  auto lease = (*h)->take(65);
  ASSERT_FALSE(lease);
  EXPECT_EQ(lease.error(), Error::kReserveTooLarge) << describe(lease.error());
  EXPECT_EQ(fake().increment_calls, calls);
}

// Each reservation size: one index, a few, one NV write's worth (256) and either side of it, and the
// largest one reservation may take (kMaxReserve).
INSTANTIATE_TEST_SUITE_P(Sizes, WitnessGate, ::testing::Values(1, 2, 7, 255, 256, 257, 4096, kMaxReserve),
                         [](const ::testing::TestParamInfo<std::uint64_t>& i) { return "reserve" + std::to_string(i.param); });

}  // namespace
}  // namespace klms::state
