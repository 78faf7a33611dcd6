// `openssl pkey -text` / `-text_pub`: the parameter sets, I, the public key, and for private keys
// the state file, next index, remaining and maximum signatures, and whether the key was seeded.
#pragma once

#include <string>

#include "provider/key.h"

namespace klms::provider {

// The exhaustion warning uses the state file's threshold (state/exhaustion.h), never the
// configuration's: every tool reads the same file (docs/state.md §5).
std::string key_text(const KeyMaterial& key, bool include_private, const state::StateOptions& options);

}  // namespace klms::provider
