// What the user can do about a state-store error, with the state file's own path in it (docs/state.md
// "Errors"): the command to run for an error that has one, and the system's reason for a failed
// write. Appended to describe(error) by the provider and by klms-state.
#pragma once

#include <string>

#include "base/error.h"

namespace klms::state {

// "" when `error` has no path-specific remedy; otherwise text starting with "; " (or ": " for the
// system's reason of a failed write), e.g. "; run: chmod 600 /path/k.state".
std::string remedy_of(Error error, const std::string& path) noexcept;

// The path as a shell word: quoted when it holds anything but [A-Za-z0-9/._+,:@%=-].
std::string shell_word(const std::string& path);

}  // namespace klms::state
