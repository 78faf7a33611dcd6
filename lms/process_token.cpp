#include "lms/process_token.h"

#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <atomic>
#include <new>

namespace klms::lms {
namespace {

// In a page of its own, since MADV_WIPEONFORK works on whole pages. `pid` is the process the token
// was made in: without MADV_WIPEONFORK a child still sees its parent's token, and the pid tells.
struct TokenPage {
  std::atomic<std::uint64_t> token{0};
  std::atomic<pid_t> pid{0};
};

TokenPage* make_page() noexcept {
  const long page_size = ::sysconf(_SC_PAGESIZE);
  const std::size_t bytes = page_size > 0 ? static_cast<std::size_t>(page_size) : 4096;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    // No page: the pid alone decides (still right for fork and clone, not for pid namespaces).
    static TokenPage fallback;
    return &fallback;
  }
#ifdef MADV_WIPEONFORK
  (void)::madvise(p, bytes, MADV_WIPEONFORK);  // EINVAL on old kernels: the pid check remains
#endif
  return new (p) TokenPage;
}

std::uint64_t fresh_token(pid_t pid) noexcept {
  std::uint64_t t = 0;
  if (::getrandom(&t, sizeof t, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof t)) {
    // Early boot without entropy: the pid and an address still differ per process that matters here.
    t = (static_cast<std::uint64_t>(pid) << 32) ^ reinterpret_cast<std::uintptr_t>(&t);
  }
  return t == 0 ? 1 : t;
}

}  // namespace

std::uint64_t process_token() noexcept {
  // Never destroyed; in a child the pointer is inherited and the page behind it is wiped.
  static TokenPage* const page = make_page();
  const pid_t pid = ::getpid();
  for (;;) {
    const std::uint64_t token = page->token.load(std::memory_order_acquire);
    if (token != 0 && page->pid.load(std::memory_order_acquire) == pid) return token;
    // First use in this process (or a child that inherited an unwiped page): one thread makes it.
    const std::uint64_t mine = fresh_token(pid);
    std::uint64_t expected = token;
    if (page->token.compare_exchange_strong(expected, mine, std::memory_order_acq_rel)) {
      page->pid.store(pid, std::memory_order_release);
      return mine;
    }
    // Another thread won; read its token (the loop waits for its pid store).
  }
}

}  // namespace klms::lms
