// The signing session (lms/signing_session.h) against real state files: each refusal at its own
// step and before any index is spent, distinct indices for two sessions, and the state summary
// refusing exactly what begin refuses. The state file's next index is read with the state store's
// own inspect_state_file, never through the session.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "base/endian.h"
#include "lms/signing_session.h"
#include "lms/verify.h"
#include "test/unit/lms/lms_test_util.h"

namespace klms::lms {
namespace {

using test::Bytes;

const Bytes kSeed(32, 0x42);
const Bytes kOtherSeed(32, 0x43);
const Bytes kId(16, 0x17);
const Bytes kMessage = {'f', 'i', 'r', 'm', 'w', 'a', 'r', 'e'};

std::vector<LevelParams> small_levels() {
  return {{lms_for(HashFamily::kSha256, 32, 5), ots_for(HashFamily::kSha256, 32, 8)}};
}

// A key object as the provider holds one: the two halves, the binding, and what signing keeps.
struct KeyObject {
  HssPrivateKey private_key;
  Bytes public_key;
  KeptSigning kept;

  KeyObject(HssPrivateKey priv, Bytes pub) : private_key(std::move(priv)), public_key(std::move(pub)) {}
  SigningKey signing_key() {
    const state::KeyBinding binding{key_id_of(public_key), levels_digest_of(private_key.levels),
                                    private_key.levels.size() == 1};
    return SigningKey{&private_key, public_key, binding, &kept};
  }
};

std::uint64_t next_index(const std::string& state_file) {
  auto info = state::inspect_state_file(state_file);
  if (!info) throw std::runtime_error(std::string("inspect: ") + describe(info.error()));
  return info->next;
}

// The index q of an L = 1 signature: u32 Nspk = 0, then the LMS signature's u32 q.
std::uint32_t index_of(const Bytes& signature) { return endian::load_be32(signature.data() + 4); }

// A state file name the state store opens but check_state_path refuses: fewer than
// kStateNameReserve bytes of the name limit left.
std::string long_name(const test::TempDir& dir) {
  return dir.file(std::string(NAME_MAX - state::kStateNameReserve + 1 - 6, 'k') + ".state");
}

Bytes sign_whole(SigningSession& session) {
  EXPECT_EQ(session.update(kMessage), Error::kOk);
  auto signature = session.finish();
  if (!signature) throw std::runtime_error(std::string("finish: ") + describe(signature.error()));
  return std::move(*signature);
}

TEST(SigningSession, WrongHalvesFailAtTheTreeBeforeAnIndexIsSpent) {
  test::TempDir dir;
  auto own = test::generate_seeded(dir, small_levels(), kSeed, kId, nullptr, "own.state");
  auto other = test::generate_seeded(dir, small_levels(), kOtherSeed, kId, nullptr, "other.state");
  // The other key's private half (same I, other SEED) with this key's public half and state file:
  // every check up to the tree passes, the tree's root is not the public key's.
  HssPrivateKey mixed = other.private_key;
  mixed.state_file = own.private_key.state_file;
  KeyObject key(std::move(mixed), own.public_key);
  const std::uint64_t before = next_index(own.private_key.state_file);

  SessionStart start = SigningSession::begin(key.signing_key(), own.private_key.state_file, SessionOptions{});
  ASSERT_FALSE(start.session);
  EXPECT_EQ(start.step, SessionStep::kLoadTree) << describe(start.session.error());
  EXPECT_EQ(next_index(own.private_key.state_file), before);
}

TEST(SigningSession, BadStatePathIsRefusedAtThePathStep) {
  test::TempDir dir;
  auto generated = test::generate_seeded(dir, small_levels(), kSeed, kId);
  KeyObject key(generated.private_key, generated.public_key);
  // A control character could forge lines of `pkey -text` (state::check_state_path); the path
  // names the real file's directory so that only the path check can refuse it.
  const std::string bad = dir.file("key\n.state");
  std::filesystem::copy_file(generated.private_key.state_file, bad);

  SessionStart start = SigningSession::begin(key.signing_key(), bad, SessionOptions{});
  ASSERT_FALSE(start.session);
  EXPECT_EQ(start.step, SessionStep::kStatePath);
  EXPECT_EQ(start.session.error(), Error::kStatePathInvalid);
  SessionStart relative = SigningSession::begin(key.signing_key(), "key.state", SessionOptions{});
  ASSERT_FALSE(relative.session);
  EXPECT_EQ(relative.step, SessionStep::kStatePath);
  // The key's own file renamed to a name that leaves no room for its caches' names: the state
  // store still opens it (same inode), the path step refuses it.
  const std::string renamed = long_name(dir);
  std::filesystem::rename(generated.private_key.state_file, renamed);
  SessionStart too_long = SigningSession::begin(key.signing_key(), renamed, SessionOptions{});
  ASSERT_FALSE(too_long.session);
  EXPECT_EQ(too_long.step, SessionStep::kStatePath);
  EXPECT_EQ(too_long.session.error(), Error::kStateNameTooLong);
  EXPECT_EQ(next_index(renamed), 0u);
}

TEST(SigningSession, CopiedAndForeignStatesAreRefusedAtTheOpenStep) {
  test::TempDir dir;
  auto generated = test::generate_seeded(dir, small_levels(), kSeed, kId);
  auto stranger = test::generate_seeded(dir, small_levels(), kOtherSeed, kId, nullptr, "stranger.state");
  KeyObject key(generated.private_key, generated.public_key);
  const std::string copy = dir.file("copy.state");
  std::filesystem::copy_file(generated.private_key.state_file, copy);

  SessionStart copied = SigningSession::begin(key.signing_key(), copy, SessionOptions{});
  ASSERT_FALSE(copied.session);
  EXPECT_EQ(copied.step, SessionStep::kOpenState);
  EXPECT_EQ(copied.session.error(), Error::kStateCopied);

  SessionStart foreign = SigningSession::begin(key.signing_key(), stranger.private_key.state_file, SessionOptions{});
  ASSERT_FALSE(foreign.session);
  EXPECT_EQ(foreign.step, SessionStep::kOpenState);
  EXPECT_EQ(foreign.session.error(), Error::kStateForeign);
  EXPECT_EQ(next_index(copy), 0u);
  EXPECT_EQ(next_index(stranger.private_key.state_file), 0u);
}

TEST(SigningSession, SeededKeyIsRefusedFirst) {
  test::TempDir dir;
  auto generated = test::generate_seeded(dir, small_levels(), kSeed, kId);
  KeyObject key(generated.private_key, generated.public_key);
  ::unsetenv("KLMS_ALLOW_SEEDED_KEYS");
  // Even with a path the path step would refuse: the seeded-key check runs first.
  SessionStart start = SigningSession::begin(key.signing_key(), "relative.state", SessionOptions{});
  ::setenv("KLMS_ALLOW_SEEDED_KEYS", "1", 1);
  ASSERT_FALSE(start.session);
  EXPECT_EQ(start.step, SessionStep::kSeededKey);
  EXPECT_EQ(start.session.error(), Error::kSeededKeyRefused);
}

TEST(SigningSession, TwoSessionsGetDistinctIndicesAndVerify) {
  test::TempDir dir;
  auto generated = test::generate_seeded(dir, small_levels(), kSeed, kId);
  KeyObject key(generated.private_key, generated.public_key);
  const std::string& path = generated.private_key.state_file;

  SessionStart first = SigningSession::begin(key.signing_key(), path, SessionOptions{});
  ASSERT_TRUE(first.session) << describe(first.session.error());
  SessionStart second = SigningSession::begin(key.signing_key(), path, SessionOptions{});
  ASSERT_TRUE(second.session) << describe(second.session.error());
  EXPECT_TRUE(first.session->owned_by_this_process());
  // Both indices are durably reserved before either signs (docs/state.md §2).
  EXPECT_EQ(next_index(path), 2u);

  const Bytes a = sign_whole(*second.session);
  const Bytes b = sign_whole(*first.session);
  EXPECT_NE(index_of(a), index_of(b));
  EXPECT_EQ(hss_verify(generated.public_key, kMessage, a), Error::kOk);
  EXPECT_EQ(hss_verify(generated.public_key, kMessage, b), Error::kOk);
  // One session, one signature.
  EXPECT_EQ(first.session->finish().error(), Error::kLeaseConsumed);
}

// The summary runs begin's state checks on the key's own state file: it refuses what begin refuses,
// with the same error, and accepts what begin accepts.
TEST(SigningSession, SummaryAgreesWithWhatBeginRefuses) {
  test::TempDir dir;
  auto generated = test::generate_seeded(dir, small_levels(), kSeed, kId);
  auto stranger = test::generate_seeded(dir, small_levels(), kOtherSeed, kId, nullptr, "stranger.state");
  const std::string copy = dir.file("copy.state");
  std::filesystem::copy_file(generated.private_key.state_file, copy);
  // A second key's file under a long name: it opens, the path check refuses it.
  auto renamed_key = test::generate_seeded(dir, small_levels(), kSeed, kId, nullptr, "renamed.state");
  const std::string renamed = long_name(dir);
  std::filesystem::rename(renamed_key.private_key.state_file, renamed);

  struct Case {
    std::string state_file;
    Error refusal;
  };
  const std::vector<Case> cases = {{generated.private_key.state_file, Error::kOk},
                                   {copy, Error::kStateCopied},
                                   {stranger.private_key.state_file, Error::kStateForeign},
                                   {dir.file("missing.state"), Error::kStateMissing},
                                   {dir.file("bad\x01.state"), Error::kStatePathInvalid},
                                   {renamed, Error::kStateNameTooLong}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.state_file);
    HssPrivateKey priv = generated.private_key;
    priv.state_file = c.state_file;
    KeyObject key(std::move(priv), generated.public_key);
    const StateSummary summary = summarize_state(key.signing_key(), state::StateOptions{});
    EXPECT_EQ(summary.error, c.refusal);
    // A signing context's remaining-signatures runs the same checks and refuses the same files.
    SessionStep step = SessionStep::kBegin;
    auto remaining = remaining_signatures(key.signing_key(), c.state_file, state::StateOptions{}, step);
    EXPECT_EQ(remaining ? Error::kOk : remaining.error(), c.refusal);
    if (remaining) {
      EXPECT_EQ(*remaining, 32u);
    }
    SessionStart start = SigningSession::begin(key.signing_key(), c.state_file, SessionOptions{});
    EXPECT_EQ(start.session.error(), summary.error);
    if (c.refusal == Error::kOk) {
      ASSERT_TRUE(summary.have_info);
      EXPECT_EQ(summary.remaining, 32u);
      EXPECT_EQ(summarize_state(key.signing_key(), state::StateOptions{}).remaining, 31u);
    }
  }
}

// A session moved from is used up, and a key with no private half is refused before anything:
// neither dereferences what is not there.
TEST(SigningSession, MovedFromSessionAndPublicOnlyKeyAreRefused) {
  test::TempDir dir;
  auto generated = test::generate_seeded(dir, small_levels(), kSeed, kId);
  KeyObject key(generated.private_key, generated.public_key);
  SessionStart start = SigningSession::begin(key.signing_key(), generated.private_key.state_file, SessionOptions{});
  ASSERT_TRUE(start.session) << describe(start.session.error());
  SigningSession taken(std::move(*start.session));
  EXPECT_EQ(start.session->update(kMessage), Error::kLeaseConsumed);  // NOLINT(bugprone-use-after-move): the point
  auto from_moved = start.session->finish();                          // NOLINT(bugprone-use-after-move)
  ASSERT_FALSE(from_moved);
  EXPECT_EQ(from_moved.error(), Error::kLeaseConsumed);
  const Bytes signature = sign_whole(taken);
  EXPECT_EQ(hss_verify(key.public_key, kMessage, signature), Error::kOk);

  SigningKey public_only = key.signing_key();
  public_only.private_key = nullptr;
  SessionStart refused = SigningSession::begin(public_only, generated.private_key.state_file, SessionOptions{});
  ASSERT_FALSE(refused.session);
  EXPECT_EQ(refused.session.error(), Error::kInvalidArgument);
  EXPECT_EQ(summarize_state(public_only, state::StateOptions{}).error, Error::kInvalidArgument);
  SessionStep step = SessionStep::kBegin;
  auto remaining = remaining_signatures(public_only, generated.private_key.state_file, state::StateOptions{}, step);
  ASSERT_FALSE(remaining);
  EXPECT_EQ(remaining.error(), Error::kInvalidArgument);
  EXPECT_EQ(next_index(generated.private_key.state_file), 1u);
}

// A copy of the process made while another thread is inside the signer registry (making a signer:
// here held there by its progress callback) signs at once: it has a registry and kept signer of
// its own (base/per_process.h) and never waits on the original's lock, which nobody in the copy
// will ever release. Before, the child waited on that lock until its alarm killed it.
TEST(SigningSessionFork, ACopyMadeWhileAnotherThreadMakesASignerSignsWithoutWaiting) {
  test::TempDir dir;
  auto generated = test::generate_seeded(dir, small_levels(), kSeed, kId);
  KeyObject key(generated.private_key, generated.public_key);
  const std::string& state_file = generated.private_key.state_file;

  std::mutex mutex;
  std::condition_variable changed;
  bool inside = false;
  bool release = false;
  SessionOptions held;
  held.progress = [&](const LevelParams&, const std::string&, const std::string&) -> ProgressCallback {
    std::unique_lock<std::mutex> lock(mutex);
    inside = true;
    changed.notify_all();
    changed.wait(lock, [&] { return release; });
    return {};
  };
  std::thread maker([&] {
    SessionStart start = SigningSession::begin(key.signing_key(), state_file, held);
    EXPECT_TRUE(start.session) << describe(start.session.error());
    if (start.session) sign_whole(*start.session);
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return inside; });
  }

  const pid_t child = ::fork();
  if (child == 0) {
    ::alarm(20);  // a copy that waits on the inherited lock is killed, and the test fails
    SessionStart start = SigningSession::begin(key.signing_key(), state_file, SessionOptions{});
    if (!start.session) ::_exit(2);
    if (start.session->update(kMessage) != Error::kOk) ::_exit(3);
    auto signature = start.session->finish();
    if (!signature) ::_exit(4);
    ::_exit(hss_verify(key.public_key, kMessage, *signature) == Error::kOk ? 0 : 5);
  }
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  {
    std::lock_guard<std::mutex> lock(mutex);
    release = true;
  }
  changed.notify_all();
  maker.join();
  ASSERT_TRUE(WIFEXITED(status)) << "the copy was killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << " (SIGALRM: it waited on the original's lock)";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // Two signatures, two indices: the copy's and the maker's.
  EXPECT_EQ(next_index(state_file), 2u);
}

}  // namespace
}  // namespace klms::lms
