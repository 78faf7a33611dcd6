#include "bench/study/peak_memory.h"

#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <sstream>

#include "bench/study/bench_key.h"
#include "lms/verify.h"

namespace klms::bench {
namespace {

long status_kib(const char* field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long value = -1;
  const std::size_t len = std::strlen(field);
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, field, len) == 0 && line[len] == ':') {
      value = std::strtol(line + len + 1, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return value;
}

bool reset_hwm() {
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return ok;
}

// Runs `op` between a high-water-mark reset and a VmHWM read; prints the result line.
template <typename Op>
bool measured(const char* name, bool& reset_ok, Op op) {
  malloc_trim(0);  // give freed heap back first, so "before" is what is really in use
  reset_ok = reset_hwm() && reset_ok;
  const long before = status_kib("VmRSS");
  const bool ok = op();
  std::printf("peak op=%s peak_kib=%ld rss_before_kib=%ld ok=%d\n", name, status_kib("VmHWM"), before, ok ? 1 : 0);
  std::fflush(stdout);
  return ok;
}

}  // namespace

int run_peak_child(const Options& o) {
  const hashes::Backend* backend = backend_by_name(o.child_backend);
  if (backend == nullptr) return 2;
  auto config = make_config(*backend, o.child_h, o.child_w, o.child_levels, o.child_lower_h);
  if (!config) return 2;
  const std::string state_file = o.child_dir + "/peak.state";
  const klms::Bytes message(o.message_bytes, 0x5a);
  bool reset_ok = true;

  std::optional<lms::GeneratedKey> key;
  measured("keygen", reset_ok, [&] {
    auto made = lms::generate_key(keygen_request(*config, state_file, o.child_threads));
    if (made) key = std::move(*made);
    return made.ok();
  });
  if (!key) return 3;
  auto handle = state::StateHandle::open(state_file, lms::key_id_of(key->public_key), {});
  if (!handle) return 3;
  auto first = (*handle)->take(2);  // reserve two: this sign and the cache-file sign below
  if (!first) return 3;
  (void)key->signer->prepare(first->index());  // lower levels of an HSS key are built here, not in sign
  klms::Bytes signature;
  measured("sign", reset_ok, [&] {
    auto sig = key->signer->sign(std::move(*first), message);
    if (sig) signature = std::move(*sig);
    return sig.ok();
  });
  measured("verify", reset_ok, [&] {
    return lms::hss_verify(key->public_key, message, signature, backend) == klms::Error::kOk;
  });

  // A signer that starts from the cache file, with the in-memory tree gone.
  lms::HssPrivateKey private_key = key->private_key;
  klms::Bytes public_key = key->public_key;
  key.reset();
  auto second = (*handle)->take(1);
  if (!second) return 3;
  measured("sign-cachefile", reset_ok, [&] {
    lms::SignerOptions options;
    options.cache_path = state_file + ".cache";
    options.preferred_backend = backend;
    auto signer = lms::Signer::create(private_key, public_key, options);
    if (!signer) return false;
    return (*signer)->sign(std::move(*second), message).ok();
  });
  std::printf("hwm_reset=%d\n", reset_ok ? 1 : 0);
  handle->reset();
  remove_key_files(state_file);
  return 0;
}

ChildPeaks measure_peaks_in_child(const Options& o, const Config& config, unsigned threads, const std::string& dir) {
  ChildPeaks result;
  std::vector<std::string> args = {
      "klms-bench",
      "--child",
      "--child-backend=" + std::string(config.backend->name),
      "--child-dir=" + dir,
      "--child-h=" + std::to_string(config.h),
      "--child-w=" + std::to_string(config.w),
      "--child-levels=" + std::to_string(config.levels),
      "--child-lower-h=" + std::to_string(config.lower_h),
      "--child-threads=" + std::to_string(threads),
      "--message-bytes=" + std::to_string(o.message_bytes),
  };
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    result.error = "pipe failed";
    return result;
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out[0]);
    ::close(out[1]);
    result.error = "fork failed";
    return result;
  }
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  ::close(out[1]);
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(out[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(out[0]);
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  result.process_maxrss_kib = usage.ru_maxrss;  // kilobytes on Linux
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    result.error = "peak child failed (status " + std::to_string(status) + ")";
  }
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("hwm_reset=", 0) == 0) result.hwm_reset = line == "hwm_reset=1";
    if (line.rfind("peak ", 0) != 0) continue;
    OpPeak p;
    char op[64] = {};
    int ok = 0;
    if (std::sscanf(line.c_str(), "peak op=%63s peak_kib=%ld rss_before_kib=%ld ok=%d", op, &p.peak_kib,
                    &p.rss_before_kib, &ok) == 4 && ok == 1) {
      p.op = op;
      result.ops.push_back(p);
    }
  }
  return result;
}

}  // namespace klms::bench
