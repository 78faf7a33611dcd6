// Progress lines on stderr for long tree builds, written only when the user asked for them
// (-pkeyopt progress:1, KLMS_PROGRESS=1; docs/developer-kit.md "Progress"): what is built for which
// state file, how far it is in per cent, one line per 10 %, and — in key generation only — about how
// long is left. During signing nothing reads a clock (docs/state.md §14): those lines count work done.
#pragma once

#include <string>

#include "stateful/scheme.h"
#include "stateful/signing_session.h"
#include "stateful/tree_build.h"

namespace klms::stateful {

// KLMS_PROGRESS=1 in the environment (any other value, or none: no lines).
bool progress_requested_by_environment() noexcept;

// Key generation: lines about the top tree of a key of `scheme` for `state_file`, with an estimate
// of the time left. `forward` (may be empty) is the application's own callback (genpkey's dots),
// called as before; its result cancels.
ProgressCallback keygen_progress_lines(const Scheme& scheme, const std::string& state_file, ProgressCallback forward);

// Signing: lines about rebuilding the top tree `top` of `state_file` because its tree cache
// `cache_path` is missing or unusable. Reads no clock.
ProgressCallback rebuild_progress_lines(const TreeShape& top, const std::string& state_file,
                                        const std::string& cache_path);

// For SessionOptions::progress: rebuild_progress_lines when KLMS_PROGRESS=1 is set at the time a
// signer is made, else no lines (a library must not write to stderr unasked).
RebuildProgress rebuild_progress_on_request();

}  // namespace klms::stateful
