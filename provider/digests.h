// The Korean hashes as EVP digests (docs/params.md "Digests").
#pragma once

#include <openssl/core.h>

namespace klms::provider {

// OSSL_OP_DIGEST algorithms, terminated by a null entry.
const OSSL_ALGORITHM* digest_algorithms() noexcept;

}  // namespace klms::provider
