// Helpers for the state store tests: private temporary directories, keys, raw file surgery, and
// running the driver and the tool as separate processes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "state/file_format.h"
#include "state/store.h"

namespace klms::test::state_fixture {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif

// A fresh directory (mkdtemp, 0700) inside a 0700 directory of ours under $TMPDIR or /tmp — /tmp
// itself is writable by everybody and would be refused as a state directory. Removed afterwards.
class TempDir {
 public:
  TempDir();
  // Under another base directory (e.g. /dev/shm for a second file system); ok() false when unusable.
  explicit TempDir(const std::string& base);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

state::KeyId make_key(std::uint8_t seed);
std::string hex(const std::uint8_t* data, std::size_t len);
template <std::size_t N>
std::string hex(const std::array<std::uint8_t, N>& a) {
  return hex(a.data(), a.size());
}

std::vector<std::uint8_t> read_bytes(const std::string& path);
// Overwrites the file's contents in place (same inode): O_WRONLY|O_TRUNC, write, fsync.
void write_bytes_in_place(const std::string& path, const std::vector<std::uint8_t>& bytes);
// A new file (new inode), mode 0600, with these contents; fails if it exists.
void write_new_file(const std::string& path, const std::vector<std::uint8_t>& bytes);
// Like `cp src dst` to a path that does not exist: a new inode with the same contents.
void copy_to_new_file(const std::string& src, const std::string& dst);
// Both slots decoded (status per block).
struct RawSlots {
  state::format::SlotStatus status[2];
  state::format::Slot slot[2];
  int valid() const;
};
RawSlots decode_file(const std::string& path);
// Writes a state file by hand: both blocks, the given slot in block 0 with generation g and in block
// 1 with generation g - 1 (or only block 0 valid when g == 0). Device and inode are the file's own.
void write_crafted_state(const std::string& path, state::format::Slot slot);

// A process run to completion.
struct ProcessResult {
  int exit_code = -1;  // exit status, or -signal
  std::string out;
  std::string err;
};
using Env = std::map<std::string, std::string>;
ProcessResult run_process(const std::vector<std::string>& argv, const Env& extra_env = {},
                          const std::string& stdin_text = "");
// Starts a process with stdout appended to `stdout_path` (stderr to stderr_path); returns its pid.
pid_t spawn_process(const std::vector<std::string>& argv, const Env& extra_env, const std::string& stdout_path,
                    const std::string& stderr_path);
// Waits for pid; returns the exit status or -signal.
int wait_process(pid_t pid);

// The environment that preloads the fault shim with KLMS_FAULT=fault.
Env fault_env(const std::string& fault);

// The numbers among the lines of a driver's output ("# ..." lines skipped). `partial` counts a
// last line without newline.
std::vector<std::uint64_t> parse_indices(const std::string& output, int* partial = nullptr);

// Runs fn in a forked child and returns its exit status (or -signal). For what must not run in the
// test process (setuid, a deliberately blocked process).
int run_in_child(const std::function<int()>& fn);

// Driver argv.
std::vector<std::string> driver_args(const std::string& path, const state::KeyId& key, std::uint64_t batch,
                                     std::uint64_t count, std::vector<std::string> extra = {});
inline int driver_exit_code(klms::Error e) { return 20 + static_cast<int>(e); }

}  // namespace klms::test::state_fixture
