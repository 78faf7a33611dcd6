#include "test/unit/state/state_test_util.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

extern char** environ;

namespace klms::test::state_fixture {
namespace {

// Our own 0700 directory under $TMPDIR (or /tmp).
std::string private_base() {
  const char* tmp = std::getenv("TMPDIR");
  std::string base = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
  base += "/klms-state-tests-" + std::to_string(::geteuid());
  if (::mkdir(base.c_str(), 0700) != 0 && errno != EEXIST) return {};
  struct stat st {};
  if (::lstat(base.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) return {};
  if ((st.st_mode & 0777) != 0700 && ::chmod(base.c_str(), 0700) != 0) return {};
  return base;
}

std::string make_temp_under(const std::string& base) {
  if (base.empty()) return {};
  std::string templ = base + "/t.XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) return {};
  return std::string(buf.data());
}

void write_fd_all(int fd, const std::uint8_t* data, std::size_t len) {
  while (len > 0) {
    const ssize_t n = ::write(fd, data, len);
    if (n < 0 && errno == EINTR) continue;
    ASSERT_GT(n, 0) << std::strerror(errno);
    data += n;
    len -= static_cast<std::size_t>(n);
  }
}

// argv and envp as C arrays, built before fork (nothing allocates in the child before exec).
struct ExecArgs {
  std::vector<std::string> strings_argv, strings_env;
  std::vector<char*> argv, envp;
  ExecArgs(const std::vector<std::string>& args, const Env& extra) : strings_argv(args) {
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      const std::string key = entry.substr(0, entry.find('='));
      if (extra.count(key) == 0) strings_env.push_back(entry);
    }
    for (const auto& [k, v] : extra) strings_env.push_back(k + "=" + v);
    for (auto& s : strings_argv) argv.push_back(s.data());
    argv.push_back(nullptr);
    for (auto& s : strings_env) envp.push_back(s.data());
    envp.push_back(nullptr);
  }
};

}  // namespace

TempDir::TempDir() : path_(make_temp_under(private_base())) {
  if (path_.empty()) ADD_FAILURE() << "cannot make a private temporary directory";
}

TempDir::TempDir(const std::string& base) {
  // Our own 0700 directory inside `base` first, as above.
  const std::string mine = base + "/klms-state-tests-" + std::to_string(::geteuid());
  if (::mkdir(mine.c_str(), 0700) != 0 && errno != EEXIST) return;
  struct stat st {};
  if (::lstat(mine.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) return;
  if (::chmod(mine.c_str(), 0700) != 0) return;
  path_ = make_temp_under(mine);
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
  std::filesystem::remove_all(path_, ec);
}

state::KeyId make_key(std::uint8_t seed) {
  state::KeyId key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(seed * 31 + i * 7 + 1);
  return key;
}

std::string hex(const std::uint8_t* data, std::size_t len) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < len; ++i) {
    out += digits[data[i] >> 4];
    out += digits[data[i] & 15];
  }
  return out;
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::vector<std::uint8_t> out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    ADD_FAILURE() << "cannot open " << path << ": " << std::strerror(errno);
    return out;
  }
  std::uint8_t buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.insert(out.end(), buf, buf + n);
  }
  ::close(fd);
  return out;
}

void write_bytes_in_place(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  ASSERT_GE(fd, 0) << path << ": " << std::strerror(errno);
  write_fd_all(fd, bytes.data(), bytes.size());
  ::fsync(fd);
  ::close(fd);
}

void write_new_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0) << path << ": " << std::strerror(errno);
  write_fd_all(fd, bytes.data(), bytes.size());
  ::fsync(fd);
  ::close(fd);
}

void copy_to_new_file(const std::string& src, const std::string& dst) { write_new_file(dst, read_bytes(src)); }

int RawSlots::valid() const {
  return (status[0] == state::format::SlotStatus::kValid) + (status[1] == state::format::SlotStatus::kValid);
}

RawSlots decode_file(const std::string& path) {
  using namespace state::format;
  RawSlots raw{};
  auto bytes = read_bytes(path);
  bytes.resize(kFileBytes, 0);
  for (unsigned b = 0; b < 2; ++b) {
    raw.status[b] = decode_slot(std::span<const std::uint8_t, kBlockBytes>(bytes.data() + b * kBlockBytes, kBlockBytes),
                                raw.slot[b]);
  }
  return raw;
}

void write_crafted_state(const std::string& path, state::format::Slot slot) {
  using namespace state::format;
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0) << "craft over an existing file (for its inode)";
  slot.device = st.st_dev;
  slot.inode = st.st_ino;
  std::vector<std::uint8_t> bytes(kFileBytes, 0);
  Block block;
  encode_slot(slot, block);
  std::copy(block.begin(), block.end(), bytes.begin());
  if (slot.generation > 0) {
    Slot older = slot;
    older.generation = slot.generation - 1;
    encode_slot(older, block);
    std::copy(block.begin(), block.end(), bytes.begin() + kBlockBytes);
  }
  write_bytes_in_place(path, bytes);
}

ProcessResult run_process(const std::vector<std::string>& argv, const Env& extra_env, const std::string& stdin_text) {
  ProcessResult result;
  ExecArgs args(argv, extra_env);
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return result;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::execve(args.argv[0], args.argv.data(), args.envp.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  // stdin is small: write it all, then close so the child sees end of input.
  ::signal(SIGPIPE, SIG_IGN);
  if (!stdin_text.empty()) {
    [[maybe_unused]] ssize_t n = ::write(in[1], stdin_text.data(), stdin_text.size());
  }
  ::close(in[1]);
  struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  result.exit_code = wait_process(pid);
  return result;
}

pid_t spawn_process(const std::vector<std::string>& argv, const Env& extra_env, const std::string& stdout_path,
                    const std::string& stderr_path) {
  ExecArgs args(argv, extra_env);
  const int out = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  const int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (out < 0 || err < 0) {
    ADD_FAILURE() << "cannot open driver output files";
    return -1;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execve(args.argv[0], args.argv.data(), args.envp.data());
    ::_exit(127);
  }
  ::close(out);
  ::close(err);
  return pid;
}

int wait_process(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1000;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1000;
}

Env fault_env(const std::string& fault) {
  Env env{{"LD_PRELOAD", KLMS_FAULT_SHIM}, {"KLMS_FAULT", fault}};
  if (kSanitizerBuild) {
    const char* existing = std::getenv("ASAN_OPTIONS");
    env["ASAN_OPTIONS"] = std::string(existing != nullptr ? existing : "") +
                          (existing != nullptr && *existing != '\0' ? ":" : "") + "verify_asan_link_order=0";
  }
  return env;
}

std::vector<std::uint64_t> parse_indices(const std::string& output, int* partial) {
  std::vector<std::uint64_t> indices;
  if (partial != nullptr) *partial = 0;
  std::size_t start = 0;
  while (start < output.size()) {
    const std::size_t end = output.find('\n', start);
    if (end == std::string::npos) {
      if (partial != nullptr) ++*partial;
      break;
    }
    const std::string line = output.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] == '#') continue;
    indices.push_back(std::stoull(line));
  }
  return indices;
}

int run_in_child(const std::function<int()>& fn) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 100;
    try {
      code = fn();
    } catch (...) {
      code = 101;
    }
    ::_exit(code);
  }
  return wait_process(pid);
}

std::vector<std::string> driver_args(const std::string& path, const state::KeyId& key, std::uint64_t batch,
                                     std::uint64_t count, std::vector<std::string> extra) {
  std::vector<std::string> args = {KLMS_STATE_DRIVER, path, hex(key), std::to_string(batch), std::to_string(count)};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

}  // namespace klms::test::state_fixture
