#pragma once

#include <openssl/core.h>

namespace klms::provider {

// OSSL_OP_SIGNATURE algorithms (HSS-LMS), terminated by a null entry.
const OSSL_ALGORITHM* signature_algorithms() noexcept;

}  // namespace klms::provider
