// `klms-state show --json STATE`: what a state file records, as one JSON object on stdout, for
// monitoring. An interface: man/klms-state.1.scd "JSON OUTPUT" lists every field, its type and what
// may change (fields are only added; none is renamed or changes its type within schema_version 1).
#pragma once

#include <string>

#include "base/error.h"
#include "state/store.h"

namespace klms::tools {

// The JSON document for a state file that could be read (also one signing refuses).
std::string state_json(const std::string& path, const state::StateInfo& info);
// The JSON document for a file that could not be read at all (missing, not a state file, ...).
std::string state_error_json(const std::string& path, Error error);

// Prints the document for `path`; the exit status of `klms-state show`: 0 readable and not refused,
// 1 refused or unreadable.
int show_state_json(const std::string& path);

// A short stable name for an error ("state_damaged"), for programs to match on.
const char* error_code(Error error) noexcept;

}  // namespace klms::tools
