// Whole processes against one state file (docs/state.md §1, §2, §6, §7): concurrent signers, signers
// SIGKILLed at random instants, and write/fsync failures injected by the LD_PRELOAD fault shim.
// klms-state-driver stands in for a signer: every line it prints is an index it could have signed
// with.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "state/store.h"
#include "test/unit/state/state_test_util.h"

namespace klms::state {
namespace {

using namespace test::state_fixture;

std::vector<std::uint8_t> read_bytes_quiet(const std::string& path) {
  std::vector<std::uint8_t> out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  std::uint8_t buf[512];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n > 0) out.assign(buf, buf + n);
  ::close(fd);
  return out;
}

struct ProcessTest : ::testing::Test {
  TempDir dir;
  std::string path = dir.file("key.state");
  KeyId key = make_key(5);
  void create(std::uint64_t max) { ASSERT_EQ(create_state_file(path, key, max, {}), Error::kOk); }
  std::uint64_t file_next() {
    auto info = read_state_file(path);
    EXPECT_TRUE(info) << describe(info.error());
    return info ? info->next : 0;
  }
};

struct ConcurrencyCase {
  std::uint64_t batch;
  std::uint64_t count;  // per thread
};

class ConcurrentProcesses : public ProcessTest, public ::testing::WithParamInterface<ConcurrencyCase> {};

TEST_P(ConcurrentProcesses, EightProcessesTimesFourThreadsNeverShareAnIndex) {
  create(1u << 30);
  constexpr int kProcesses = 8, kThreads = 4;
  const auto [batch, count] = GetParam();
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcesses; ++p) {
    const std::string out = dir.file("out." + std::to_string(p));
    pids.push_back(spawn_process(driver_args(path, key, batch, count, {"--threads", std::to_string(kThreads)}), {},
                                 out, dir.file("err." + std::to_string(p))));
  }
  std::vector<std::uint64_t> all;
  for (int p = 0; p < kProcesses; ++p) {
    ASSERT_EQ(wait_process(pids[p]), 0) << "driver " << p;
    const auto bytes = read_bytes(dir.file("out." + std::to_string(p)));
    const auto indices = parse_indices(std::string(bytes.begin(), bytes.end()));
    EXPECT_EQ(indices.size(), std::size_t{kThreads} * count);
    all.insert(all.end(), indices.begin(), indices.end());
  }
  const std::set<std::uint64_t> distinct(all.begin(), all.end());
  EXPECT_EQ(distinct.size(), all.size()) << "an index was handed out twice";
  const std::uint64_t next = file_next();
  if (batch == 1) {
    EXPECT_EQ(next, all.size()) << "nothing is lost without reservations";
  } else {
    // Each process may exit with part of one reservation unused: lost, never reused.
    EXPECT_GE(next, all.size());
    EXPECT_LE(next - all.size(), std::uint64_t{kProcesses} * (batch - 1));
  }
  EXPECT_GT(next, *distinct.rbegin());
}

INSTANTIATE_TEST_SUITE_P(State, ConcurrentProcesses,
                         ::testing::Values(ConcurrencyCase{1, 60}, ConcurrencyCase{5, 99}),
                         [](const auto& test_param) { return "batch" + std::to_string(test_param.param.batch); });

// Whether a thread of `pid` is inside pwrite64, fsync, fdatasync or fcntl (the lock) right now,
// from /proc/<pid>/task/*/syscall (x86-64 numbers; elsewhere this just counts nothing).
bool in_state_syscall(pid_t pid) {
#if defined(__x86_64__)
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    const auto bytes = read_bytes_quiet(task.path().string() + "/syscall");
    const std::string text(bytes.begin(), bytes.end());
    const long nr = std::strtol(text.c_str(), nullptr, 10);
    if (!text.empty() && text[0] != 'r' && (nr == 18 || nr == 72 || nr == 74 || nr == 75)) return true;
  }
#else
  (void)pid;
#endif
  return false;
}

// SIGKILL at random instants — during startup, between reservations, inside pwrite or fsync — for
// 200 rounds of two or three concurrent drivers. Afterwards no index was printed twice, the file's
// next is past every printed index, and the file is readable with at most one damaged slot.
TEST_F(ProcessTest, SigkillAtRandomInstantsNeverRepeatsAnIndex) {
  create(std::uint64_t{1} << 40);
  const std::uint64_t seed = std::random_device{}();
  std::cout << "[ seed     ] " << seed << "\n";
  std::mt19937_64 rng(seed);
  constexpr int kRounds = 200;
  std::set<std::uint64_t> emitted;
  std::uint64_t max_emitted = 0, rounds_with_output = 0, kills_inside_state_calls = 0;
  const auto started = std::chrono::steady_clock::now();

  for (int round = 0; round < kRounds; ++round) {
    const int drivers = 2 + static_cast<int>(rng() % 2);
    std::vector<pid_t> pids;
    std::vector<std::string> outs;
    for (int d = 0; d < drivers; ++d) {
      const std::uint64_t batch = 1 + rng() % 8;
      const std::uint64_t threads = 1 + rng() % 3;
      outs.push_back(dir.file("crash.out." + std::to_string(round) + "." + std::to_string(d)));
      pids.push_back(spawn_process(driver_args(path, key, batch, 0, {"--threads", std::to_string(threads)}), {},
                                   outs.back(), dir.file("crash.err")));
      ASSERT_GT(pids.back(), 0);
    }
    // Half the rounds kill at a random instant after the start (exec, loading, open, the first
    // reservation); the other half wait until a driver printed its first index, so that however
    // slow the machine, plenty of kills land while the drivers sign.
    const bool after_first_index = rng() % 2 == 0;
    const unsigned spread = kSanitizerBuild ? 30000 : 6000;
    for (int d = 0; d < drivers; ++d) {
      if (after_first_index) {
        struct stat st {};
        for (int waited = 0; waited < 20000 && (::stat(outs[d].c_str(), &st) != 0 || st.st_size == 0); ++waited) {
          std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 2000));
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % (spread / drivers)));
      }
      kills_inside_state_calls += in_state_syscall(pids[d]);
      ::kill(pids[d], SIGKILL);
    }
    bool any_output = false;
    for (int d = 0; d < drivers; ++d) {
      const int status = wait_process(pids[d]);
      ASSERT_TRUE(status == -SIGKILL) << "driver ended on its own with " << status << " in round " << round;
      const auto bytes = read_bytes(outs[d]);
      int partial = 0;
      const auto indices = parse_indices(std::string(bytes.begin(), bytes.end()), &partial);
      EXPECT_EQ(partial, 0) << "a line is written with one write(2)";
      for (std::uint64_t i : indices) {
        ASSERT_TRUE(emitted.insert(i).second) << "index " << i << " handed out twice (round " << round << ")";
        max_emitted = std::max(max_emitted, i);
      }
      any_output = any_output || !indices.empty();
      ::unlink(outs[d].c_str());
    }
    rounds_with_output += any_output;
    // Still readable, at most one slot damaged, and ahead of everything printed.
    const RawSlots raw = decode_file(path);
    ASSERT_GE(raw.valid(), 1) << "round " << round;
    auto info = read_state_file(path);
    ASSERT_TRUE(info) << describe(info.error()) << " after round " << round;
    if (!emitted.empty()) {
      ASSERT_GT(info->next, max_emitted) << "round " << round;
    }
  }
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << "[ crash    ] " << kRounds << " rounds, " << rounds_with_output << " killed after signing began, "
            << emitted.size() << " distinct indices, " << kills_inside_state_calls
            << " kills with a thread inside pwrite/fsync/lock, " << seconds << " s\n";
  EXPECT_GE(rounds_with_output, kRounds / 3u) << "half the rounds kill after the first index";
  // A last signer after all the crashes continues past everything.
  auto h = StateHandle::open(path, key, {});
  ASSERT_TRUE(h);
  auto lease = (*h)->take(1);
  ASSERT_TRUE(lease);
  EXPECT_GT(lease->index(), max_emitted);
}

struct FaultCase {
  const char* fault;
  const char* name;
  std::size_t indices_before_failure;  // with batch 1
};

class FaultShim : public ProcessTest, public ::testing::WithParamInterface<FaultCase> {};

TEST_P(FaultShim, FailedWriteOrFsyncPrintsNoIndexAndPoisons) {
  create(1000);
  const FaultCase c = GetParam();
  // Stop mode: the driver dies on the first error with its code.
  auto stop = run_process(driver_args(path, key, 1, 10), fault_env(c.fault));
  EXPECT_EQ(stop.exit_code, driver_exit_code(Error::kStateWriteFailed)) << stop.err;
  auto indices = parse_indices(stop.out);
  EXPECT_EQ(indices.size(), c.indices_before_failure) << stop.out;
  EXPECT_NE(stop.err.find(describe(Error::kStateWriteFailed)), std::string::npos) << stop.err;

  // Reopen mode: the same handle stays poisoned, a fresh open works again.
  auto reopen = run_process(driver_args(path, key, 1, 10, {"--on-error", "reopen"}), fault_env(c.fault));
  EXPECT_EQ(reopen.exit_code, 0) << reopen.err;
  const std::string expected_events = "# error " + std::to_string(static_cast<int>(Error::kStateWriteFailed)) +
                                      "\n# again " + std::to_string(static_cast<int>(Error::kStatePoisoned)) +
                                      "\n# reopened fresh\n";
  EXPECT_NE(reopen.out.find(expected_events), std::string::npos) << reopen.out;
  const auto second = parse_indices(reopen.out);
  EXPECT_EQ(second.size(), 10u);
  std::set<std::uint64_t> all(indices.begin(), indices.end());
  for (std::uint64_t i : second) EXPECT_TRUE(all.insert(i).second) << i << " used twice";
  EXPECT_GT(file_next(), *all.rbegin());
}

INSTANTIATE_TEST_SUITE_P(State, FaultShim,
                         // Each reservation is two durable block writes (state/file_format.h).
                         ::testing::Values(FaultCase{"fsync:1", "first_fsync", 0},
                                           FaultCase{"fsync:2", "second_fsync", 0},
                                           FaultCase{"fsync:3", "third_fsync", 1},
                                           FaultCase{"fsync:6", "sixth_fsync", 2},
                                           FaultCase{"pwrite:1", "first_pwrite", 0},
                                           FaultCase{"write:2:ENOSPC", "second_write_enospc", 0},
                                           FaultCase{"write:3:ENOSPC", "third_write_enospc", 1},
                                           FaultCase{"fdatasync:1,fsync:1:EIO", "two_rules", 0}),
                         [](const auto& test_param) { return std::string(test_param.param.name); });

TEST_F(ProcessTest, FaultShimOnlyTouchesMatchingFiles) {
  create(1000);
  Env env = fault_env("fsync:1+");
  env["KLMS_FAULT_SUFFIX"] = ".cache";
  auto run = run_process(driver_args(path, key, 1, 5), env);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(parse_indices(run.out).size(), 5u);

  auto persistent = run_process(driver_args(path, key, 1, 5, {"--on-error", "reopen"}), fault_env("fsync:1+"));
  EXPECT_EQ(persistent.exit_code, driver_exit_code(Error::kStateWriteFailed)) << persistent.out;
  EXPECT_TRUE(parse_indices(persistent.out).empty()) << "every fsync fails: nothing may be printed";
}

TEST_F(ProcessTest, DriverReportsStateErrors) {
  auto missing = run_process(driver_args(path, key, 1, 1));
  EXPECT_EQ(missing.exit_code, driver_exit_code(Error::kStateMissing));
  create(2);
  ASSERT_TRUE(acknowledge_exhaustion(path, key, {}));  // the driver signs to the end (docs/state.md §5)
  auto exhausted = run_process(driver_args(path, key, 1, 3));
  EXPECT_EQ(exhausted.exit_code, driver_exit_code(Error::kExhausted));
  EXPECT_EQ(parse_indices(exhausted.out), (std::vector<std::uint64_t>{0, 1}));
  auto foreign = run_process(driver_args(path, make_key(9), 1, 1));
  EXPECT_EQ(foreign.exit_code, driver_exit_code(Error::kStateForeign));
}

}  // namespace
}  // namespace klms::state
