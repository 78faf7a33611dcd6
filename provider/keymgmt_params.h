// Key-generation parameters (docs/design.md "Parameters"): the long form lms/ots, the short form
// hash/height/winternitz, state-file, seed and identifier, resolved into HSS levels with errors that
// name the parameter at fault.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/secret.h"
#include "lms/params.h"

namespace klms::provider {

struct GenerationRequest {
  std::optional<std::string> lms, ots, hash, height, winternitz;
  std::optional<std::string> params;  // XMSS, XMSS^MT, K-XMSS: the set's name
  std::optional<std::string> state_file;
  std::optional<std::string> witness;  // "tpm" or "none" (docs/state.md "The witness")
  // SEED is secret: a wiping container, so a seed set twice wipes the first, and the generation
  // context wipes it when it is freed. I is public (it is in the public key).
  std::optional<klms::SecretBytes> seed;
  std::optional<std::vector<unsigned char>> identifier;
};

// The levels for a request, or an English message naming the parameter that is wrong.
std::vector<lms::LevelParams> resolve_levels(const GenerationRequest& request, std::string& error);

// "a,b , c" -> {"a","b","c"}; empty items are kept (and rejected by the caller).
std::vector<std::string> split_list(const std::string& text);

}  // namespace klms::provider
