#include "xmss/stack_wipe.h"

#include <string.h>

namespace klms::xmss {

// Not inlined, so its frame lies where the callee frames of its caller lay.
[[gnu::noinline]] void wipe_stack() noexcept {
  alignas(64) unsigned char below[kWipedStackBytes];
  explicit_bzero(below, sizeof below);
  asm volatile("" : : "r"(below) : "memory");
}

}  // namespace klms::xmss
