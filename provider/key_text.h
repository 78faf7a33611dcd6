// `openssl pkey -text` / `-text_pub`: the parameter sets, I, the public key, and for private keys
// the state file, next index, remaining and maximum signatures, and whether the key was seeded.
#pragma once

#include <string>

#include "provider/key.h"

namespace klms::provider {

// `low_signatures_warning`: warn when this many signatures are left or fewer (0: never).
std::string key_text(const KeyMaterial& key, bool include_private, const state::StateOptions& options,
                     std::uint64_t low_signatures_warning);

}  // namespace klms::provider
