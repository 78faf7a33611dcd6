// Locking (docs/state.md §6): the lock belongs to the open file description, so another description —
// even in the same process — excludes a reservation (classic POSIX locks would not: they belong to
// the process), and every descriptor is close-on-exec.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "state/store.h"
#include "test/unit/state/state_test_util.h"

namespace klms::state {
namespace {

using test::state_fixture::make_key;
using test::state_fixture::TempDir;

struct LockTest : ::testing::Test {
  TempDir dir;
  std::string path = dir.file("key.state");
  KeyId key = make_key(10);
  void SetUp() override { ASSERT_EQ(create_state_file(path, key, 1000, {}), Error::kOk); }
};

bool set_ofd_lock(int fd, short type) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  return ::fcntl(fd, F_OFD_SETLK, &lock) == 0;
}

TEST_F(LockTest, AnotherDescriptionInTheSameProcessExcludesAReservation) {
  auto h = StateHandle::open(path, key, {});
  ASSERT_TRUE(h);
  const int other = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(other, 0);
  ASSERT_TRUE(set_ofd_lock(other, F_WRLCK));
  std::atomic<bool> done{false};
  std::thread signer([&] {
    auto lease = (*h)->take(1);
    EXPECT_TRUE(lease);
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(done.load()) << "reserved while another open file description held the lock";
  ASSERT_TRUE(set_ofd_lock(other, F_UNLCK));
  signer.join();
  EXPECT_TRUE(done.load());
  ::close(other);
}

// The display read takes a shared lock: it waits while a writer (here: an exclusive lock held on
// another description) is in the middle of a slot write.
TEST_F(LockTest, DisplayReadWaitsForAWriter) {
  const int other = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(other, 0);
  ASSERT_TRUE(set_ofd_lock(other, F_WRLCK));
  std::atomic<bool> done{false};
  std::thread reader([&] {
    EXPECT_TRUE(read_state_file(path));
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(done.load());
  ASSERT_TRUE(set_ofd_lock(other, F_UNLCK));
  reader.join();
  EXPECT_TRUE(done.load());
  ::close(other);
}

TEST_F(LockTest, DescriptorsAreCloseOnExec) {
  auto h = StateHandle::open(path, key, {});
  ASSERT_TRUE(h);
  ASSERT_TRUE((*h)->take(1));
  const auto target = std::filesystem::canonical(path);
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    if (std::filesystem::read_symlink(entry.path(), ec) != target || ec) continue;
    const int fd = std::stoi(entry.path().filename().string());
    EXPECT_NE(::fcntl(fd, F_GETFD) & FD_CLOEXEC, 0) << "fd " << fd;
    ++found;
  }
  EXPECT_EQ(found, 1) << "one descriptor per handle";
}

}  // namespace
}  // namespace klms::state
