// docs/state.md "One process, one owner": an operation in flight, an index lease and a reservation
// are usable only in the process that made them — not in a child made by fork(), nor by a raw
// clone() that runs no pthread_atfork handler. Before this, a streaming signature forked after its
// first update let parent and child each finish one index with a different message (both verify:
// the forged-signature path).
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "base/process_token.h"
#include "lms/verify.h"
#include "test/unit/lms/lms_test_util.h"

namespace klms::lms {
namespace {

using test::Bytes;

// fork() without the C library: no atfork handlers run, as with a raw clone by another runtime.
pid_t raw_clone() { return static_cast<pid_t>(::syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, nullptr)); }

enum class Copy { kFork, kRawClone };
const char* name_of(Copy c) { return c == Copy::kFork ? "fork" : "raw clone"; }

// Runs `child` in a copy of this process; returns its exit code (or 128 + signal).
template <typename F>
int in_copy(Copy how, F child) {
  const pid_t pid = how == Copy::kFork ? ::fork() : raw_clone();
  if (pid == 0) ::_exit(child());
  if (pid < 0) return -1;
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::vector<LevelParams> levels() {
  return {{lms_for(HashFamily::kSha256, 32, 5), ots_for(HashFamily::kSha256, 32, 8)}};
}

const Bytes kSeed(32, 0x61);
const Bytes kId(16, 0x62);

TEST(ProcessToken, SameInEveryThreadDifferentInEveryCopy) {
  const std::uint64_t mine = process_token();
  EXPECT_NE(mine, 0u);
  std::atomic<std::uint64_t> other{0};
  std::thread([&] { other = process_token(); }).join();
  EXPECT_EQ(other.load(), mine);
  for (Copy how : {Copy::kFork, Copy::kRawClone}) {
    SCOPED_TRACE(name_of(how));
    // 0: the child's token differs from the parent's and is stable within the child.
    EXPECT_EQ(in_copy(how, [&] {
                const std::uint64_t t = process_token();
                return t != mine && t != 0 && process_token() == t ? 0 : 1;
              }),
              0);
  }
  EXPECT_EQ(process_token(), mine) << "the parent keeps its token";
}

class ProcessBinding : public ::testing::TestWithParam<Copy> {};

TEST_P(ProcessBinding, AStreamingSignatureInFlightCannotBeFinishedByACopy) {
  test::TempDir dir;
  auto key = test::generate_seeded(dir, levels(), kSeed, kId);
  auto handle = state::StateHandle::open(key.private_key.state_file, key_id_of(key.public_key), {});
  ASSERT_TRUE(handle);
  auto lease = (*handle)->take();
  ASSERT_TRUE(lease);
  auto op = key.signer->begin(std::move(*lease));
  ASSERT_TRUE(op);
  const Bytes first = {'o', 'n', 'e'};
  ASSERT_EQ(op->update(first), Error::kOk);
  // The copy tries to go on with other data and to finish: both refused, nothing to print.
  const int child = in_copy(GetParam(), [&] {
    const Bytes other = {'t', 'w', 'o'};
    if (op->owned_by_this_process()) return 10;
    if (op->update(other) != Error::kForeignProcess) return 11;
    auto sig = key.signer->finish(std::move(*op));
    if (sig || sig.error() != Error::kForeignProcess) return 12;
    return 0;
  });
  EXPECT_EQ(child, 0) << name_of(GetParam());
  // The original finishes its own message, which verifies.
  const Bytes rest = {'!'};
  ASSERT_EQ(op->update(rest), Error::kOk);
  auto sig = key.signer->finish(std::move(*op));
  ASSERT_TRUE(sig) << describe(sig.error());
  EXPECT_EQ(hss_verify(key.public_key, Bytes{'o', 'n', 'e', '!'}, *sig), Error::kOk);
}

TEST_P(ProcessBinding, ALeaseCannotBeSpentByACopy) {
  test::TempDir dir;
  auto key = test::generate_seeded(dir, levels(), kSeed, kId);
  auto handle = state::StateHandle::open(key.private_key.state_file, key_id_of(key.public_key), {});
  ASSERT_TRUE(handle);
  auto lease = (*handle)->take();
  ASSERT_TRUE(lease);
  const int child = in_copy(GetParam(), [&] {
    if (lease->owned_by_this_process()) return 10;
    auto sig = key.signer->sign(std::move(*lease), Bytes{'x'});
    return !sig && sig.error() == Error::kForeignProcess ? 0 : 11;
  });
  EXPECT_EQ(child, 0);
  EXPECT_TRUE(lease->owned_by_this_process());
  auto sig = key.signer->sign(std::move(*lease), Bytes{'y'});
  EXPECT_TRUE(sig) << describe(sig.error());
}

TEST_P(ProcessBinding, AReservationIsNeverUsedByACopy) {
  test::TempDir dir;
  auto key = test::generate_seeded(dir, levels(), kSeed, kId);
  auto handle = state::StateHandle::open(key.private_key.state_file, key_id_of(key.public_key), {});
  ASSERT_TRUE(handle);
  ASSERT_EQ((*handle)->take(8)->index(), 0u);  // 1..7 stay reserved in memory
  ASSERT_EQ((*handle)->reserved_unused(), 7u);
  // The parent's handle is refused in the copy; a handle of its own reserves from the file (index
  // 8 or later), never 1..7.
  const int child = in_copy(GetParam(), [&] {
    if ((*handle)->reserved_unused() != 0) return 10;
    if ((*handle)->take(1).error() != Error::kForeignProcess) return 13;
    auto own = state::StateHandle::open(key.private_key.state_file, key_id_of(key.public_key), {});
    if (!own || own->get() == handle->get()) return 14;
    auto l = (*own)->take(1);
    if (!l) return 11;
    return l->index() >= 8 ? 0 : 12;
  });
  EXPECT_EQ(child, 0);
  EXPECT_EQ((*handle)->take(1)->index(), 1u) << "the parent goes on with its own reservation";
}

INSTANTIATE_TEST_SUITE_P(State, ProcessBinding, ::testing::Values(Copy::kFork, Copy::kRawClone),
                         [](const auto& test_param) { return test_param.param == Copy::kFork ? "fork" : "raw_clone"; });

// The state file names every level's parameter sets, so a key file whose lower
// levels were changed cannot make a top-level one-time key sign a second child public key.
TEST(LevelsBinding, AStateFileRefusesAKeyWithOtherLowerLevels) {
  test::TempDir dir;
  std::vector<LevelParams> two = {{lms_for(HashFamily::kSha256, 32, 5), ots_for(HashFamily::kSha256, 32, 8)},
                                  {lms_for(HashFamily::kSha256, 32, 5), ots_for(HashFamily::kSha256, 32, 8)}};
  auto key = test::generate_seeded(dir, two, kSeed, kId);
  const state::KeyId id = key_id_of(key.public_key);
  const state::LevelsDigest genuine = levels_digest_of(two);
  std::vector<LevelParams> altered = two;
  altered[1].ots = ots_for(HashFamily::kSha256, 32, 4);
  const state::LevelsDigest forged = levels_digest_of(altered);
  ASSERT_NE(genuine, forged);
  altered = two;
  altered[1].lms = lms_for(HashFamily::kSha256, 32, 10);
  EXPECT_NE(levels_digest_of(altered), genuine);
  const std::string& path = key.private_key.state_file;
  EXPECT_TRUE(state::StateHandle::open(path, state::KeyBinding{id, genuine, false}, {}));
  EXPECT_EQ(state::StateHandle::open(path, state::KeyBinding{id, forged, false}, {}).error(), Error::kStateParamsMismatch);
  auto info = state::read_state_file(path);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->levels_digest, genuine) << "key generation binds the levels";
}

// A file without a binding (made before format 2) is bound by the first write of a key that names
// its levels — automatically only while that cannot hide an earlier use with other levels: when it
// never signed, or when the key id names every level (L = 1). A used one of a multi-level key is
// refused until the user binds it (klms-state adopt --levels-digest).
TEST(LevelsBinding, AnUnboundFileIsBoundOnlyWhenThatIsSafe) {
  test::TempDir dir;
  state::KeyId id{};
  id.fill(0x33);
  state::LevelsDigest a{}, b{};
  a.fill(1);
  b.fill(2);
  {  // never used: bound by its first reservation
    const std::string path = dir.file("fresh.state");
    ASSERT_EQ(state::create_state_file(path, id, 100, {}), Error::kOk);
    ASSERT_FALSE(state::read_state_file(path)->levels_bound());
    auto h = state::StateHandle::open(path, state::KeyBinding{id, a, false}, {});
    ASSERT_TRUE(h);
    ASSERT_TRUE((*h)->take(1));
    EXPECT_EQ(state::read_state_file(path)->levels_digest, a);
    EXPECT_EQ(state::StateHandle::open(path, state::KeyBinding{id, b, false}, {}).error(), Error::kStateParamsMismatch);
  }
  const std::string used = dir.file("used.state");
  ASSERT_EQ(state::create_state_file(used, id, 100, {}), Error::kOk);
  {
    auto h = state::StateHandle::open(used, id, {});  // signed without a binding, as before format 2
    ASSERT_TRUE(h && (*h)->take(3));
  }
  EXPECT_EQ(state::StateHandle::open(used, state::KeyBinding{id, a, false}, {}).error(), Error::kStateUnbound);
  {  // L = 1: the key id names the only level
    const std::string single = dir.file("single.state");
    ASSERT_EQ(state::create_state_file(single, id, 100, {}), Error::kOk);
    auto plain = state::StateHandle::open(single, id, {});
    ASSERT_TRUE(plain && (*plain)->take(2));
    auto h = state::StateHandle::open(single, state::KeyBinding{id, a, true}, {});
    ASSERT_TRUE(h) << describe(h.error());
    ASSERT_TRUE((*h)->take(1));
    EXPECT_EQ(state::read_state_file(single)->levels_digest, a);
  }
  // The user binds the used one explicitly; from then on it is an ordinary bound file.
  state::AdoptOptions bind;
  bind.levels = b;
  auto adopted = state::adopt_state_file(used, bind);
  ASSERT_TRUE(adopted) << describe(adopted.error());
  EXPECT_EQ(adopted->levels_digest, b);
  EXPECT_EQ(adopted->next, 3u);
  EXPECT_TRUE(state::StateHandle::open(used, state::KeyBinding{id, b, false}, {}));
  EXPECT_EQ(state::StateHandle::open(used, state::KeyBinding{id, a, false}, {}).error(), Error::kStateParamsMismatch);
  bind.levels = a;
  EXPECT_EQ(state::adopt_state_file(used, bind).error(), Error::kStateParamsMismatch) << "a binding is never replaced";
}

}  // namespace
}  // namespace klms::lms
