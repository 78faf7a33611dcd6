#include "tools/lease_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace klms::tools {
namespace {

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

std::string system_reason(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

std::string copy_tree_cache(const std::string& parent_state, const std::string& lease_state) {
  const std::string from = parent_state + ".cache";
  const std::string to = lease_state + ".cache";
  const std::string tmp = to + ".tmp." + std::to_string(::getpid());
  Fd in(::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (in.fd < 0) return errno == ENOENT ? "the parent has no tree cache yet" : system_reason(from.c_str());
  Fd out(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, S_IRUSR | S_IWUSR));
  if (out.fd < 0) return system_reason(tmp.c_str());
  std::vector<char> buf(1 << 20);
  for (;;) {
    const ssize_t n = ::read(in.fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string why = system_reason(from.c_str());
      ::unlink(tmp.c_str());
      return why;
    }
    if (n == 0) break;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(out.fd, buf.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        std::string why = system_reason(tmp.c_str());
        ::unlink(tmp.c_str());
        return why;
      }
      done += w;
    }
  }
  if (::fsync(out.fd) != 0) {
    std::string why = system_reason(tmp.c_str());
    ::unlink(tmp.c_str());
    return why;
  }
  // link + unlink: into place only where no file is (rename would replace one).
  if (::link(tmp.c_str(), to.c_str()) != 0) {
    std::string why = system_reason(to.c_str());
    ::unlink(tmp.c_str());
    return why;
  }
  ::unlink(tmp.c_str());
  return {};
}

}  // namespace klms::tools
