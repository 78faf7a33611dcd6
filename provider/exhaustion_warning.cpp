#include "provider/exhaustion_warning.h"

#include <cstdio>
#include <string>

#include "state/remedy.h"

namespace klms::provider {

void write_exhaustion_warning(const state::LowSignaturesNotice& n) noexcept {
  try {
    const std::string path = n.path != nullptr ? *n.path : std::string("the state file");
    const auto plural = [](std::uint64_t count, const char* one, const char* many) {
      return std::to_string(count) + " " + (count == 1 ? one : many);
    };
    std::string line = "klms: warning: " + path + ": ";
    if (n.waits_for_acknowledgement) {
      line += plural(n.before_stop, "signature", "signatures") +
              " left before signing stops to wait for `klms-state acknowledge " + state::shell_word(path) +
              "` (the key's last " + std::to_string(n.threshold) + " are held back): prepare the key that replaces it\n";
    } else {
      line += plural(n.before_stop, "signature", "signatures") + " left before it is exhausted: " +
              "prepare the key that replaces it\n";
    }
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
  } catch (...) {
    // Out of memory: the warning is lost, the signature is not.
  }
}

}  // namespace klms::provider
