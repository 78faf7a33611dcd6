#include "stateful/progress.h"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "klms/klms.h"

namespace klms::stateful {
namespace {

// 1048576 -> "1,048,576".
std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// One whole line at a time, so that lines from two threads (or from the application) never mix
// within a line.
void write_line(const std::string& line) {
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

// The per-cent lines of one build: one line whenever the build passes another tenth (a tree
// reports every 1/64, stateful/tree_build.h), and the last at 100 %.
class Deciles {
 public:
  // The per cent to print now, or -1.
  int next(std::uint64_t done, std::uint64_t total) {
    if (total == 0) return -1;
    const int percent = done >= total ? 100 : static_cast<int>(done * 100 / total);
    if (percent / 10 <= printed_decile_) return -1;
    printed_decile_ = percent / 10;
    return percent;
  }

 private:
  int printed_decile_ = 0;
};

// "less than a second left", "about 3 s left", "about 4 min 10 s left", "about 1 h 5 min left".
std::string time_left(double seconds) {
  // Rounded in whole milliseconds: std::llround would make klms.so need libm, one more library to load.
  const auto ms = seconds > 0 ? static_cast<std::uint64_t>(std::min(seconds, 1e15) * 1000.0) : std::uint64_t{0};
  const std::uint64_t s = (ms + 500) / 1000;
  if (s == 0) return "less than a second left";
  if (s < 90) return "about " + std::to_string(s) + " s left";
  if (s < 3600) return "about " + std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s left";
  return "about " + std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) + " min left";
}

// Key generation only: the time since the build started, for the estimate. The one clock of the
// provider, and never read while signing (docs/state.md §14; test/recipes/progress.t checks that).
class KeygenClock {
 public:
  void start() { start_ = std::chrono::steady_clock::now(); }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

bool progress_requested_by_environment() noexcept {
  const char* v = std::getenv(KLMS_ENV_PROGRESS);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

ProgressCallback keygen_progress_lines(const Scheme& scheme, const std::string& state_file, ProgressCallback forward) {
  const TreeShape top = scheme.top_tree();
  const std::string header = "klms: building the top tree of " + scheme.key_shape() + " (" + grouped(top.leaves) +
                             " leaves, " + top.parameters + ") for state file " + state_file + "\n";
  // Shared by the copies std::function makes; one build at a time uses it, from its start (done = 0).
  struct Lines {
    Deciles deciles;
    KeygenClock clock;
    bool forwarded_since_line = false;  // the application may have printed (dots) since our last line
  };
  auto lines = std::make_shared<Lines>();
  return [header, lines, forward = std::move(forward)](std::uint64_t done, std::uint64_t total) {
    if (done == 0) {
      *lines = Lines{};
      lines->clock.start();
      write_line(header);
      return true;  // genpkey's dots stay as they were: its callback never sees the start
    }
    // The application is called after our line, and at the end before it: genpkey's dots then
    // follow a line of ours, a line of ours after dots starts a line of its own, and genpkey's
    // closing newline ends the last row of dots before our last line.
    const bool finished = done >= total;
    const auto call_forward = [&] {
      if (!forward) return true;
      lines->forwarded_since_line = true;
      return forward(done, total);
    };
    bool go_on = finished ? call_forward() : true;
    if (const int percent = lines->deciles.next(done, total); percent >= 0) {
      std::string line = lines->forwarded_since_line && !finished ? "\n" : "";
      lines->forwarded_since_line = false;
      const double elapsed = lines->clock.seconds();
      line += "klms: top tree " + std::to_string(percent) + "% (";
      if (!finished) {
        line += grouped(done) + " of " + grouped(total) + " leaves), " +
                time_left(elapsed * static_cast<double>(total - done) / static_cast<double>(done)) + "\n";
      } else {
        char took[32];
        std::snprintf(took, sizeof took, "%.1f s", elapsed);
        line += grouped(total) + " leaves) in " + took + "\n";
      }
      write_line(line);
    }
    if (!finished) go_on = call_forward();
    return go_on;
  };
}

ProgressCallback rebuild_progress_lines(const TreeShape& top, const std::string& state_file,
                                        const std::string& cache_path) {
  const std::string what =
      "the top tree (" + grouped(top.leaves) + " leaves, " + top.parameters + ") of state file " + state_file;
  // No clock here: progress while signing is work done only (docs/state.md §14).
  auto deciles = std::make_shared<Deciles>();
  return [what, cache_path, deciles](std::uint64_t done, std::uint64_t total) {
    if (done == 0) {
      *deciles = Deciles{};  // a second rebuild in this process counts from 0 again
      struct stat st {};
      const bool missing = ::stat(cache_path.c_str(), &st) != 0 && errno == ENOENT;
      write_line("klms: tree cache " + cache_path +
                 (missing ? " missing" : " unusable (damaged, or made for another key or tree)") + ": rebuilding " +
                 what + "\n");
      return true;
    }
    const int percent = deciles->next(done, total);
    if (percent < 0) return true;
    std::string line = "klms: rebuilding the top tree: " + std::to_string(percent) + "% (";
    line += done < total ? grouped(done) + " of " + grouped(total) + " leaves)\n"
                         : grouped(total) + " leaves); writing the tree cache " + cache_path + "\n";
    write_line(line);
    return true;
  };
}

RebuildProgress rebuild_progress_on_request() {
  return [](const PrivateKey& key, const std::string& state_file, const std::string& cache_path) {
    return progress_requested_by_environment() ? rebuild_progress_lines(key.top_tree(), state_file, cache_path)
                                               : ProgressCallback();
  };
}

}  // namespace klms::stateful
