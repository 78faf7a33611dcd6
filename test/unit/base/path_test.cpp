// absolute_path (base/path.h): the one rule the state store and the provider share.
#include "base/path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

namespace klms {
namespace {

// Runs the test body in a fresh temporary directory and comes back to where it was, even if the
// directory it left is gone.
class PathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(home_, 0);
    char tmpl[] = "/tmp/klms-path-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_EQ(::chdir(dir_.c_str()), 0);
  }
  void TearDown() override {
    if (home_ >= 0) {
      EXPECT_EQ(::fchdir(home_), 0);
      ::close(home_);
    }
    std::string cmd = "rm -rf '" + dir_ + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string cwd() const {
    char* c = ::getcwd(nullptr, 0);
    std::string s = c != nullptr ? c : "";
    std::free(c);
    return s;
  }
  int home_ = -1;
  std::string dir_;
};

TEST_F(PathTest, AbsoluteStaysAsItIs) {
  auto r = absolute_path("/var/lib/klms/k.state");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "/var/lib/klms/k.state");
  // Not normalised: ".." and "." are resolved by the file system, not by text.
  EXPECT_EQ(*absolute_path("/a/../b/./c"), "/a/../b/./c");
}

TEST_F(PathTest, RelativeGoesUnderTheCurrentDirectory) {
  const std::string here = cwd();
  ASSERT_FALSE(here.empty());
  EXPECT_EQ(*absolute_path("k.state"), here + "/k.state");
  EXPECT_EQ(*absolute_path("sub/k.state"), here + "/sub/k.state");
  EXPECT_EQ(*absolute_path("../k.state"), here + "/../k.state");
  EXPECT_EQ(*absolute_path("./k.state"), here + "/./k.state");
}

TEST_F(PathTest, DotDotNamesTheSameFileAsTheRelativeName) {
  ASSERT_EQ(::mkdir("sub", 0700), 0);
  ASSERT_EQ(::chdir("sub"), 0);
  const int fd = ::open("../k.state", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ::close(fd);
  const auto abs = absolute_path("../k.state");
  ASSERT_TRUE(abs.ok());
  struct stat a {}, b {};
  ASSERT_EQ(::stat("../k.state", &a), 0);
  ASSERT_EQ(::stat(abs->c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);
}

TEST_F(PathTest, EmptyIsRefused) {
  auto r = absolute_path("");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kStatePathInvalid);
}

TEST_F(PathTest, TrailingSlashIsKeptForTheCallerToRefuse) {
  EXPECT_EQ(*absolute_path("/var/lib/klms/"), "/var/lib/klms/");
  EXPECT_EQ(*absolute_path("dir/"), cwd() + "/dir/");
}

TEST_F(PathTest, AtTheRootNoDoubleSlash) {
  ASSERT_EQ(::chdir("/"), 0);
  EXPECT_EQ(*absolute_path("k.state"), "/k.state");
}

// A current directory longer than PATH_MAX (4096): a fixed getcwd buffer would fail here.
TEST_F(PathTest, VeryLongCurrentDirectory) {
  const std::string part(200, 'd');
  for (int i = 0; i < 25; ++i) {
    ASSERT_EQ(::mkdir(part.c_str(), 0700), 0);
    ASSERT_EQ(::chdir(part.c_str()), 0);
  }
  auto r = absolute_path("k.state");
  ASSERT_TRUE(r.ok()) << describe(r.error());
  EXPECT_GT(r->size(), 25u * 201u);
  EXPECT_EQ(r->substr(0, dir_.size()), dir_);
  EXPECT_EQ(r->substr(r->size() - 8), "/k.state");
  // The name resolves back to this directory (from the root, component by component).
  const int fd = ::open("k.state", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ::close(fd);
  struct stat here {};
  ASSERT_EQ(::stat("k.state", &here), 0);
  ASSERT_EQ(::chdir(dir_.c_str()), 0);
  const std::string rest = r->substr(dir_.size() + 1);
  const std::string dirs = rest.substr(0, rest.size() - 8);
  std::size_t pos = 0;
  while (pos < dirs.size()) {
    const std::size_t next = dirs.find('/', pos);
    const std::string name = dirs.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    ASSERT_EQ(::chdir(name.c_str()), 0) << name;
    pos = next == std::string::npos ? dirs.size() : next + 1;
  }
  struct stat there {};
  ASSERT_EQ(::stat("k.state", &there), 0);
  EXPECT_EQ(here.st_ino, there.st_ino);
}

// The current directory removed under the process: getcwd fails (ENOENT); a relative name then has
// no absolute form, and an absolute one still does.
TEST_F(PathTest, CurrentDirectoryGone) {
  ASSERT_EQ(::mkdir("gone", 0700), 0);
  ASSERT_EQ(::chdir("gone"), 0);
  ASSERT_EQ(::rmdir((dir_ + "/gone").c_str()), 0);
  auto r = absolute_path("k.state");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kStatePathInvalid);
  EXPECT_EQ(*absolute_path("/x/k.state"), "/x/k.state");
}

}  // namespace
}  // namespace klms
