#pragma once

#include <openssl/core.h>

namespace klms::provider {

// OSSL_OP_KEYMGMT algorithms (HSS-LMS), terminated by a null entry.
const OSSL_ALGORITHM* keymgmt_algorithms() noexcept;

}  // namespace klms::provider
