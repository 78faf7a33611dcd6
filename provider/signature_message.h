// OpenSSL 3.4+'s message-signature API for HSS-LMS (EVP_PKEY_sign_message_* and
// EVP_PKEY_verify_message_*): the streaming verifier used when the signature is set first
// (OSSL_SIGNATURE_PARAM_SIGNATURE, EVP_PKEY_CTX_set_signature), so that the message is hashed as
// it streams instead of being buffered. Built only against OpenSSL headers that have the API
// (KLMS_HAVE_MESSAGE_API); a module built against 3.0 simply does not offer it.
#pragma once

#include <openssl/core_dispatch.h>

#include <cstddef>
#include <memory>

#include "provider/key.h"
#include "provider/provider_context.h"

#if defined(OSSL_FUNC_SIGNATURE_SIGN_MESSAGE_INIT) && defined(OSSL_FUNC_SIGNATURE_VERIFY_MESSAGE_FINAL)
#define KLMS_HAVE_MESSAGE_API 1
#else
#define KLMS_HAVE_MESSAGE_API 0
#endif

namespace klms::provider {

struct MessageVerifyStream;  // lms::HssStreamVerifier and what it has been fed

// The signature for a streaming verification with `key`: parsed now (a malformed signature fails
// here with the verifier's reason), the message follows. null with an error raised on failure;
// throws std::bad_alloc (callers are inside an entry's guard, provider/c_boundary.h).
std::shared_ptr<MessageVerifyStream> message_verify_begin(ProviderContext* provider, const KeyMaterial& key,
                                                          const unsigned char* sig, std::size_t siglen);
// Feeds message bytes. 0 (error raised) after the final.
int message_verify_update(ProviderContext* provider, MessageVerifyStream& stream, const unsigned char* data,
                          std::size_t len);
// 1 when the signature verifies over everything fed, 0 with the verifier's reason otherwise.
int message_verify_final(ProviderContext* provider, MessageVerifyStream& stream);

}  // namespace klms::provider
