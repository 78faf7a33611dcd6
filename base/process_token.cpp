#include "base/process_token.h"

#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <new>

namespace klms {
namespace {

// In a page of its own, since MADV_WIPEONFORK works on whole pages. One 64-bit word per process
// that shares this memory: the pid of the process the token was made in (high half) and 32 random
// bits (low half, never 0). Without MADV_WIPEONFORK a child still sees its parent's words and the
// pid tells; in a new pid namespace the pid may repeat but the wiped page does not. One word, so a
// compare-and-swap publishes both. Several words because a child made with CLONE_VM (vfork, a raw
// clone) shares the page: it adds a word of its own and leaves its parent's token as it was, so the
// parent's signing state stays usable (docs/state.md §15).
struct TokenPage {
  static constexpr std::size_t kWords = 4096 / sizeof(std::uint64_t);
  std::atomic<std::uint64_t> words[kWords]{};
};

TokenPage* make_page() noexcept {
  const long page_size = ::sysconf(_SC_PAGESIZE);
  std::size_t bytes = page_size > 0 ? static_cast<std::size_t>(page_size) : 4096;
  if (bytes < sizeof(TokenPage)) bytes = sizeof(TokenPage);
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

std::uint32_t pid_of(std::uint64_t word) noexcept { return static_cast<std::uint32_t>(word >> 32); }

}  // namespace

std::uint64_t process_token() noexcept {
  // Never destroyed; in a child the pointer is inherited and the page behind it is wiped.
  static TokenPage* const page = make_page();
  const auto pid = static_cast<std::uint32_t>(::getpid());
  // This process's word: the one with its pid, else the first free word, claimed. Words are only
  // ever claimed, never cleared, so a search that passes a word with another pid may go on past it.
  const std::size_t start = pid % TokenPage::kWords;
  for (std::size_t k = 0; k < TokenPage::kWords; ++k) {
    std::atomic<std::uint64_t>& slot = page->words[(start + k) % TokenPage::kWords];
    std::uint64_t word = slot.load(std::memory_order_acquire);
    if (word == 0) {
      // The first thread of this process to claim it wins, and every other thread takes its word.
      const std::uint64_t mine = fresh_word(static_cast<pid_t>(pid));
      if (slot.compare_exchange_strong(word, mine, std::memory_order_acq_rel)) return mine;
    }
    if (pid_of(word) == pid) return word;
  }
  // Every word taken by another process sharing this memory (hundreds of CLONE_VM children): this
  // process takes over its home word. The processes it displaces then fail closed, as all of them
  // did before words were per process.
  std::atomic<std::uint64_t>& home = page->words[start];
  std::uint64_t word = home.load(std::memory_order_acquire);
  while (pid_of(word) != pid) {
    const std::uint64_t mine = fresh_word(static_cast<pid_t>(pid));
    if (home.compare_exchange_strong(word, mine, std::memory_order_acq_rel)) return mine;
  }
  return word;
}

}  // namespace klms
