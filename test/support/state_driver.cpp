// klms-state-driver: a stand-in signer for the process-level state store tests. It opens a state
// file and takes indices, writing each one as a decimal line to stdout with write(2) right after
// take() returned — so every line it ever printed is an index a real signer could have signed with,
// even if it is SIGKILLed the next instant.
//
//   klms-state-driver <state-file> <key-id-hex> <batch> <count> [options]
//     count          indices per thread; 0 = until an error or a signal
//     --threads N    N threads, each opening the file itself (they must share one handle)
//     --on-error stop|reopen
//                    stop (default): exit at the first error. reopen: print "# error <code>", take
//                    once more on the same handle and print "# again <code>", open again and print
//                    "# reopened fresh|same", then go on (a second error stops).
//     --create MAX   create the state file first (an existing one is fine)
//     --allow-network-fs
//
// Exit status: 0 when every thread took its count; 20 + the Error code of the first error
// (base/error.h); 2 on a usage error. Errors are also described on stderr.
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "state/store.h"

namespace {
namespace state = klms::state;

using klms::Error;
using klms::state::KeyId;
using klms::state::StateHandle;

struct Options {
  std::string path;
  state::KeyId key_id{};
  std::uint64_t batch = 1;
  std::uint64_t count = 0;
  unsigned threads = 1;
  bool reopen_on_error = false;
  std::uint64_t create_max = 0;
  klms::state::StateOptions state_options;
};

std::atomic<int> g_first_error{0};

void write_all(int fd, const char* data, std::size_t len) {
  while (len > 0) {
    const ssize_t n = ::write(fd, data, len);
    if (n <= 0) return;
    data += n;
    len -= static_cast<std::size_t>(n);
  }
}

// One write(2) per line, so lines of several threads never interleave.
void emit_line(const std::string& line) { write_all(STDOUT_FILENO, (line + "\n").data(), line.size() + 1); }

void report_error(const char* what, Error e) {
  const std::string msg = std::string("klms-state-driver: ") + what + ": " + klms::describe(e) + " (code " +
                          std::to_string(static_cast<int>(e)) + ")\n";
  write_all(STDERR_FILENO, msg.data(), msg.size());
  int expected = 0;
  g_first_error.compare_exchange_strong(expected, static_cast<int>(e));
}

bool parse_hex(std::string_view hex, state::KeyId& out) {
  if (hex.size() != out.size() * 2) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return true;
}

bool parse_u64(const char* s, std::uint64_t& out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || s[0] == '-') return false;
  out = v;
  return true;
}

void run_thread(const Options& options) {
  auto handle = state::StateHandle::open(options.path, options.key_id, options.state_options);
  if (!handle) return report_error("open", handle.error());
  std::shared_ptr<state::StateHandle> h = *handle;
  bool had_error = false;
  for (std::uint64_t taken = 0; options.count == 0 || taken < options.count;) {
    if (g_first_error.load() != 0 && !options.reopen_on_error) return;
    auto lease = h->take(options.batch);
    if (lease) {
      emit_line(std::to_string(lease->consume()));
      ++taken;
      continue;
    }
    if (!options.reopen_on_error || had_error) return report_error("take", lease.error());
    had_error = true;
    emit_line("# error " + std::to_string(static_cast<int>(lease.error())));
    auto again = h->take(options.batch);
    emit_line("# again " + std::to_string(again ? -1 : static_cast<int>(again.error())));
    if (again) emit_line(std::to_string(again->consume()));  // must not happen; the test sees it
    auto reopened = state::StateHandle::open(options.path, options.key_id, options.state_options);
    if (!reopened) return report_error("reopen", reopened.error());
    emit_line(std::string("# reopened ") + (reopened->get() == h.get() ? "same" : "fresh"));
    h = *reopened;
  }
}

int usage() {
  std::fputs("usage: klms-state-driver <state-file> <key-id-hex> <batch> <count> [--threads N] "
             "[--on-error stop|reopen] [--create MAX] [--allow-network-fs]\n",
             stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return usage();
  Options options;
  options.path = argv[1];
  if (!parse_hex(argv[2], options.key_id)) return usage();
  if (!parse_u64(argv[3], options.batch) || !parse_u64(argv[4], options.count)) return usage();
  for (int i = 5; i < argc; ++i) {
    const std::string_view arg = argv[i];
    std::uint64_t value = 0;
    if (arg == "--threads" && i + 1 < argc && parse_u64(argv[i + 1], value) && value >= 1 && value <= 256) {
      options.threads = static_cast<unsigned>(value);
      ++i;
    } else if (arg == "--on-error" && i + 1 < argc && (std::strcmp(argv[i + 1], "stop") == 0 ||
                                                       std::strcmp(argv[i + 1], "reopen") == 0)) {
      options.reopen_on_error = std::strcmp(argv[i + 1], "reopen") == 0;
      ++i;
    } else if (arg == "--create" && i + 1 < argc && parse_u64(argv[i + 1], options.create_max)) {
      ++i;
    } else if (arg == "--allow-network-fs") {
      options.state_options.allow_network_fs = true;
    } else {
      return usage();
    }
  }
  if (options.create_max != 0) {
    const Error e = klms::state::create_state_file(options.path, options.key_id, options.create_max, options.state_options);
    if (e != Error::kOk && e != Error::kStateExists) {
      report_error("create", e);
      return 20 + static_cast<int>(e);
    }
  }
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < options.threads; ++t) threads.emplace_back(run_thread, std::cref(options));
  run_thread(options);
  for (auto& t : threads) t.join();
  const int error = g_first_error.load();
  return error == 0 ? 0 : 20 + error;
}
