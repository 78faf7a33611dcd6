// The signing session with the engine's types: the stateful layer's session
// (stateful/signing_session.h), which signs any scheme's keys, under the names HSS callers have
// always used. An HssPrivateKey is the layer's PrivateKey, so an lms::SigningKey is the layer's
// SigningKey; only the rebuild progress callback is typed on the top level's parameter sets here.
#pragma once

#include <functional>
#include <string>

#include "lms/merkle_tree.h"
#include "lms/params.h"
#include "lms/private_key.h"
#include "lms/signer.h"
#include "stateful/signing_session.h"

namespace klms::lms {

using stateful::KeptSigning;
using stateful::remaining_signatures;
using stateful::SessionStart;
using stateful::SessionStep;
using stateful::SigningKey;
using stateful::SigningSession;
using stateful::StateSummary;
using stateful::summarize_state;

// The lines (or nothing: an empty callback) for a rebuild of the top tree `top` of `state_file`
// whose tree cache `cache_path` is missing or damaged; asked when a signer is made.
using RebuildProgress =
    std::function<ProgressCallback(const LevelParams& top, const std::string& state_file, const std::string& cache_path)>;

// stateful::SessionOptions with the progress callback typed for HSS keys; converts to the layer's
// own when passed to SigningSession::begin (whose keys, through this header, are HSS keys).
struct SessionOptions {
  state::StateOptions state;
  std::uint64_t reserve = 1;  // indices reserved at once when the process holds none (1..kMaxReserve)
  RebuildProgress progress;   // empty: no progress

  operator stateful::SessionOptions() const;  // NOLINT(google-explicit-constructor): a drop-in for the layer's
};

}  // namespace klms::lms
