#pragma once

#include <openssl/core.h>

namespace klms::provider {

// OSSL_OP_ENCODER and OSSL_OP_DECODER algorithms, each terminated by a null entry.
const OSSL_ALGORITHM* encoder_algorithms() noexcept;
const OSSL_ALGORITHM* decoder_algorithms() noexcept;

}  // namespace klms::provider
