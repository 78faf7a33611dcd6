#include "state/remedy.h"

#include <cstring>

#include "state/store.h"
#include "state/witness_etcd.h"
#include "state/witness_module.h"
#include "state/witness_tpm.h"

namespace klms::state {

std::string shell_word(const std::string& path) {
  bool plain = !path.empty();
  for (char c : path) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::strchr("/._+,:@%=-", c) != nullptr;
    if (!ok) plain = false;
  }
  if (plain) return path;
  std::string out = "'";
  for (char c : path) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string remedy_of(Error error, const std::string& path) noexcept {
  try {
    switch (error) {
      case Error::kStateMissing:
        // Never a new file by hand: it would start at index 0 (docs/backup.md).
        return "; if it is lost, restore it from a record with a high-water mark: klms-state restore "
               "--after-signature LAST.sig RECORD " + shell_word(path) + " (docs/backup.md), or retire the key";
      case Error::kStateReadableByOthers:
        return "; run: chmod 600 " + shell_word(path);
      case Error::kStateCopied:
        return "; if this is the only copy that will ever sign: klms-state adopt " + shell_word(path);
      case Error::kExhaustionNotAcknowledged:
        return "; run: klms-state acknowledge " + shell_word(path);
      case Error::kStateWriteFailed: {
        // The system's reason (ENOSPC, EIO, ...) of this thread's last failed state write.
        const int err = last_state_write_errno();
        return err != 0 ? std::string(": ") + std::strerror(err) : std::string();
      }
      case Error::kWitnessUnreachable:
      case Error::kWitnessMissing:
      case Error::kWitnessMismatch:
      case Error::kWitnessAuthFailed:
      case Error::kWitnessFailed:
      case Error::kWitnessWentBackwards:
      case Error::kWitnessRecreated:
      case Error::kWitnessOtherCluster:
      case Error::kWitnessOlderRevision:
      case Error::kWitnessDenied:
      case Error::kExhausted: {
        // What the witness's module said of this thread's last failed call (each module's message is
        // cleared by every call to it).
        if (const std::string& said = etcd::last_message(); !said.empty()) return " [etcd: " + said + "]";
        const std::string& said = tpm::last_message();
        return said.empty() ? std::string() : " [tpm: " + said + "]";
      }
      case Error::kWitnessModuleMissing: {
        // The loader's own words: the path it tried and dlerror() (state/witness_module.h).
        const std::string said = last_witness_module_error();
        return said.empty() ? std::string() : " [" + said + "]";
      }
      default:
        return {};
    }
  } catch (...) {
    return {};
  }
}

}  // namespace klms::state
