#include "tools/signing_verdict.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "state/fs_checks.h"

namespace klms::tools {
namespace {

// The witness's states that stop a signature (state/witness.h): pending and skips complete or skip
// at the next reservation, which signs.
Error witness_refusal(const state::WitnessStatus& w) noexcept {
  switch (w.state) {
    case state::WitnessState::kBehind: return Error::kStateBehindWitness;
    case state::WitnessState::kRequired: return Error::kWitnessRequired;
    case state::WitnessState::kUnreachable: return Error::kWitnessUnreachable;
    case state::WitnessState::kMissing: return Error::kWitnessMissing;
    case state::WitnessState::kDifferent: return Error::kWitnessMismatch;
    case state::WitnessState::kRefused: return Error::kWitnessFailed;
    case state::WitnessState::kNoModule: return Error::kWitnessModuleMissing;
    case state::WitnessState::kNone:
    case state::WitnessState::kAgrees:
    case state::WitnessState::kPending:
    case state::WitnessState::kSkips: return Error::kOk;
  }
  return Error::kOk;
}

}  // namespace

Error signing_refusal(const std::string& path, const state::StateInfo& info) noexcept {
  if (info.refused != Error::kOk) return info.refused;
  if (info.looks_copied()) return Error::kStateCopied;
  if (info.exhausted()) return Error::kExhausted;
  if (info.awaits_acknowledgement()) return Error::kExhaustionNotAcknowledged;
  // Signing opens the file for writing: a read-only file system or a file this user may not write
  // refuses there (state/fs_checks.h). Opening writes nothing.
  const int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    const Error e = state::fs::error_from_open_errno(errno);
    if (e == Error::kStateReadOnlyFs || e == Error::kStatePermissionDenied) return e;
  } else {
    ::close(fd);
  }
  return witness_refusal(info.witness);
}

}  // namespace klms::tools
