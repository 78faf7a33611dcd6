// Forks (docs/state.md §1, §6, §8): a child never uses its parent's reservation, locks through its own
// open file description, and a fork while another thread is mid-reservation cannot deadlock it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <filesystem>
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
using test::state_fixture::wait_process;

struct ForkTest : ::testing::Test {
  TempDir dir;
  std::string path = dir.file("key.state");
  KeyId key = make_key(4);
  void SetUp() override { ASSERT_EQ(create_state_file(path, key, 1u << 20, {}), Error::kOk); }
};

// Reads one decimal number the child wrote to the pipe; ~0 when none.
std::uint64_t read_number(int fd) {
  std::string text;
  char buf[64];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  return text.empty() ? ~std::uint64_t{0} : std::stoull(text);
}

void write_number(int fd, std::uint64_t v) {
  const std::string s = std::to_string(v);
  [[maybe_unused]] ssize_t n = ::write(fd, s.data(), s.size());
}

TEST_F(ForkTest, ChildNeverUsesTheParentsReservation) {
  auto h = StateHandle::open(path, key, {});
  ASSERT_TRUE(h);
  ASSERT_EQ((*h)->take(10)->index(), 0u);
  ASSERT_EQ((*h)->reserved_unused(), 9u);

  int pipefd[2];
  ASSERT_EQ(::pipe2(pipefd, O_CLOEXEC), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipefd[0]);
    ::alarm(20);
    // The parent's handle is the parent's (docs/state.md §15): refused, reservation and all.
    if ((*h)->reserved_unused() != 0) ::_exit(3);
    if ((*h)->take(1).error() != Error::kForeignProcess) ::_exit(5);
    auto own = StateHandle::open(path, key, {});
    if (!own || own->get() == h->get()) ::_exit(6);
    auto lease = (*own)->take(1);
    if (!lease) ::_exit(4);
    write_number(pipefd[1], lease->index());
    ::_exit(0);
  }
  ::close(pipefd[1]);
  const std::uint64_t child_index = read_number(pipefd[0]);
  ::close(pipefd[0]);
  EXPECT_EQ(wait_process(pid), 0);
  EXPECT_GE(child_index, 10u) << "the child must reserve past the parent's batch";
  EXPECT_NE(child_index, ~std::uint64_t{0});
  EXPECT_EQ((*h)->take(10)->index(), 1u) << "the parent keeps its own reservation";
  EXPECT_GE(read_state_file(path)->next, 11u);
}

// The handle's descriptor, found through /proc (the test's view of the handle's file description).
int find_state_fd(const std::string& path) {
  const auto target = std::filesystem::canonical(path);
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const auto link = std::filesystem::read_symlink(entry.path(), ec);
    if (!ec && link == target) return std::stoi(entry.path().filename().string());
  }
  return -1;
}

// If the child locked through the inherited descriptor, a lock its parent holds on that same open
// file description would not stop it. Holding one must stop it until the parent lets go.
TEST_F(ForkTest, ChildLocksThroughItsOwnOpenFileDescription) {
  auto h = StateHandle::open(path, key, {});
  ASSERT_TRUE(h);
  const int inherited = find_state_fd(path);
  ASSERT_GE(inherited, 0);
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  ASSERT_EQ(::fcntl(inherited, F_OFD_SETLK, &lock), 0);

  int pipefd[2];
  ASSERT_EQ(::pipe2(pipefd, O_CLOEXEC), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipefd[0]);
    ::alarm(20);
    auto own = StateHandle::open(path, key, {});  // the parent's handle would be refused
    if (!own) ::_exit(5);
    auto lease = (*own)->take(1);
    write_number(pipefd[1], lease ? lease->index() : 999999);
    ::_exit(lease ? 0 : 4);
  }
  ::close(pipefd[1]);
  struct pollfd p = {pipefd[0], POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 300), 0) << "the child signed past a lock held on the parent's description";
  lock.l_type = F_UNLCK;
  ASSERT_EQ(::fcntl(inherited, F_OFD_SETLK, &lock), 0);
  EXPECT_EQ(read_number(pipefd[0]), 0u);
  ::close(pipefd[0]);
  EXPECT_EQ(wait_process(pid), 0);
}

TEST_F(ForkTest, ForkDuringAReservationInAnotherThreadDoesNotDeadlock) {
  auto h = StateHandle::open(path, key, {});
  ASSERT_TRUE(h);
  // Several signers keep the file mutex (and the OFD lock) held nearly all the time, so most forks
  // land in the middle of a reservation.
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::vector<std::uint64_t> parent_indices;
  std::vector<std::thread> signers;
  for (int t = 0; t < 3; ++t) {
    signers.emplace_back([&] {
      while (!stop.load()) {
        auto lease = (*h)->take(1);  // every take is a locked write + fsync
        if (!lease) break;
        std::lock_guard g(mu);
        parent_indices.push_back(lease->index());
      }
    });
  }
  constexpr int kForks = 40;
  std::vector<std::uint64_t> child_indices;
  for (int i = 0; i < kForks; ++i) {
    int pipefd[2];
    ASSERT_EQ(::pipe2(pipefd, O_CLOEXEC), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(pipefd[0]);
      ::alarm(10);  // a deadlock ends as SIGALRM, which the parent reports
      if ((*h)->take(1).error() != Error::kForeignProcess) ::_exit(5);  // the parent's handle
      auto own = StateHandle::open(path, key, {});
      if (!own) ::_exit(6);
      auto lease = (*own)->take(1);
      if (!lease) ::_exit(4);
      write_number(pipefd[1], lease->index());
      ::_exit(0);
    }
    ::close(pipefd[1]);
    child_indices.push_back(read_number(pipefd[0]));
    ::close(pipefd[0]);
    ASSERT_EQ(wait_process(pid), 0) << "fork " << i;
  }
  stop = true;
  for (auto& t : signers) t.join();
  std::set<std::uint64_t> all(parent_indices.begin(), parent_indices.end());
  for (std::uint64_t c : child_indices) EXPECT_TRUE(all.insert(c).second) << "index " << c << " used twice";
  EXPECT_EQ(all.size(), parent_indices.size() + child_indices.size());
}

}  // namespace
}  // namespace klms::state
