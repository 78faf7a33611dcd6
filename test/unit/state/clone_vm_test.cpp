// A child made with CLONE_VM (vfork, a raw clone sharing memory) that uses the state store, seen
// from its parent afterwards (docs/state.md §15): the parent keeps its process token, its registry
// and its handles, and a handle the child made never closes a descriptor number of the parent's.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "base/process_token.h"
#include "state/store.h"
#include "test/unit/state/state_test_util.h"

namespace klms::state {
namespace {

using namespace test::state_fixture;

// What the child did, written into the memory it shares with the parent.
struct ChildWork {
  std::string path;
  KeyId key{};
  std::shared_ptr<StateHandle> handle;  // made by the child, dropped by the parent
  Error open_error = Error::kInternal;
  Error take_error = Error::kInternal;
  std::uint64_t token = 0;
};

int child_main(void* arg) {
  auto* work = static_cast<ChildWork*>(arg);
  work->token = process_token();
  auto opened = StateHandle::open(work->path, work->key, {});
  work->open_error = opened ? Error::kOk : opened.error();
  if (!opened) return 1;
  auto lease = (*opened)->take(1);
  work->take_error = lease ? Error::kOk : lease.error();
  work->handle = *opened;
  return 0;
}

// Runs child_main in a CLONE_VM|CLONE_VFORK child (the parent waits, as after vfork) and reaps it.
int run_clone_vm_child(ChildWork& work) {
  constexpr std::size_t kStack = 1 << 20;
  void* stack = ::mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return -1;
  const pid_t pid = ::clone(&child_main, static_cast<char*>(stack) + kStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &work);
  int status = -1;
  if (pid > 0 && ::waitpid(pid, &status, 0) != pid) status = -1;
  ::munmap(stack, kStack);
  return pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(CloneVmChild, TheParentStillSignsAndKeepsEveryDescriptorOfItsOwn) {
  if (kSanitizerBuild) GTEST_SKIP() << "SKIP: a CLONE_VM child shares the sanitizer's runtime state";
  TempDir dir;
  const KeyId parent_key = make_key(41);
  const std::string parent_path = dir.file("parent.state");
  ASSERT_EQ(create_state_file(parent_path, parent_key, 100, {}), Error::kOk);
  auto parent = StateHandle::open(parent_path, parent_key, {});
  ASSERT_TRUE(parent);
  auto first = (*parent)->take(1);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->index(), 0u);
  const std::uint64_t token_before = process_token();

  ChildWork work;
  work.path = dir.file("child.state");
  work.key = make_key(42);
  ASSERT_EQ(create_state_file(work.path, work.key, 100, {}), Error::kOk);
  ASSERT_EQ(run_clone_vm_child(work), 0);
  ASSERT_EQ(work.open_error, Error::kOk) << describe(work.open_error);
  EXPECT_EQ(work.take_error, Error::kOk) << describe(work.take_error);
  EXPECT_NE(work.token, token_before) << "the child is another process";
  EXPECT_EQ(process_token(), token_before) << "the parent keeps its token";

  // Descriptors of the parent's own at the numbers the child's table used.
  std::vector<int> mine;
  for (int i = 0; i < 16; ++i) mine.push_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  work.handle.reset();  // the child's handle, destroyed by the parent
  for (int fd : mine) {
    ASSERT_GE(fd, 0);
    EXPECT_NE(::fcntl(fd, F_GETFD), -1) << "descriptor " << fd << " of the parent was closed";
    ::close(fd);
  }

  auto second = (*parent)->take(1);
  ASSERT_TRUE(second) << describe(second.error());
  EXPECT_EQ(second->index(), 1u);
  auto again = StateHandle::open(parent_path, parent_key, {});
  ASSERT_TRUE(again) << describe(again.error());
  EXPECT_EQ(again->get(), parent->get()) << "the parent's registry still hands out its handle";
}

}  // namespace
}  // namespace klms::state
