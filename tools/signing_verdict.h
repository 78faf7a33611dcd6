// Whether signing would refuse a state file, as `klms-state show` reports it and exits by it
// (klms-state(1) "show"): what the file's format says, then what signing checks besides — a copy,
// the end of the key, the acknowledgement gate (docs/state.md §5), a file it cannot write, and the
// witness's verdict (docs/state.md "The witness").
#pragma once

#include <string>

#include "base/error.h"
#include "state/store.h"

namespace klms::tools {

// kOk when the next signature would be made with this file; otherwise the error signing gives.
// Opens the file for writing (as signing does) and closes it again: it writes nothing.
Error signing_refusal(const std::string& path, const state::StateInfo& info) noexcept;

}  // namespace klms::tools
