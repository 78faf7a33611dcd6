#include "base/process_token.h"

#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <atomic>
#include <new>

namespace klms {
namespace {

// In a page of its own, since MADV_WIPEONFORK works on whole pages. One 64-bit word: the pid of
// the process the token was made in (high half) and 32 random bits (low half, never 0). Without
// MADV_WIPEONFORK a child still sees its parent's word and the pid tells; in a new pid namespace
// the pid may repeat but the wiped page does not. One word, so a compare-and-swap publishes both.
struct TokenPage {
  std::atomic<std::uint64_t> word{0};
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

std::uint64_t fresh_word(pid_t pid) noexcept {
  std::uint32_t r = 0;
  if (::getrandom(&r, sizeof r, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof r)) {
    // Early boot without entropy: an address still differs between the processes that matter here.
    r = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(&r) >> 4);
  }
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(pid)) << 32) | (r == 0 ? 1u : r);
}

}  // namespace

std::uint64_t process_token() noexcept {
  // Never destroyed; in a child the pointer is inherited and the page behind it is wiped.
  static TokenPage* const page = make_page();
  const auto pid = static_cast<std::uint32_t>(::getpid());
  std::uint64_t word = page->word.load(std::memory_order_acquire);
  while (word == 0 || static_cast<std::uint32_t>(word >> 32) != pid) {
    // First use in this process (or a child that inherited an unwiped page): the first thread to
    // swap its word in wins, and every other thread takes the winner's.
    const std::uint64_t mine = fresh_word(static_cast<pid_t>(pid));
    if (page->word.compare_exchange_strong(word, mine, std::memory_order_acq_rel)) return mine;
  }
  return word;
}

}  // namespace klms
