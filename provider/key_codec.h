// The key encodings of docs/design.md "Private key" (XMSS and XMSS^MT the same with their own OIDs,
// RFC 9802, and the private key octets of xmss/xmss_scheme.h; docs/xmss.md "In the provider"):
//   SubjectPublicKeyInfo { id-alg-hss-lms-hashsig (parameters absent), BIT STRING raw HSS key }
//     (decoding also takes RFC 8708's OCTET STRING inside the BIT STRING);
//   OneAsymmetricKey v2 { 1, algorithm, OCTET STRING klms private key, [1] publicKey };
//   EncryptedPrivateKeyInfo around it (PBES2/PBKDF2 with the requested cipher).
#pragma once

#include <openssl/core.h>
#include <openssl/types.h>

#include <memory>
#include <string>

#include "lms/private_key.h"
#include "provider/key.h"

namespace klms::provider {

klms::Bytes encode_spki(const KeyMaterial& key);
lms::SecretBytes encode_private_key_info(const KeyMaterial& key);

enum class DecodeStatus { kOk, kNotOurs, kMalformed };
// kNotOurs for another algorithm's structure (a decoder then stays silent); kMalformed (with
// `error`) for our OID with bad content.
// Only keys of `scheme` (its OID) are ours.
DecodeStatus decode_spki(klms::ByteView der, KeyScheme scheme, std::shared_ptr<const KeyMaterial>& out,
                         klms::Error& error);
DecodeStatus decode_private_key_info(klms::ByteView der, KeyScheme scheme, std::shared_ptr<const KeyMaterial>& out,
                                     klms::Error& error);

// EncryptedPrivateKeyInfo with PBES2 (PBKDF2-HMAC-SHA256, 2048+ iterations, random salt and IV).
bool encrypt_private_key_info(OSSL_LIB_CTX* libctx, const char* cipher_name, const char* propq,
                              const lms::SecretBytes& plain, const char* pass, std::size_t pass_len, klms::Bytes& out);
bool looks_like_encrypted_private_key_info(klms::ByteView der) noexcept;
// kNotOurs when `der` is not an EncryptedPrivateKeyInfo; kMalformed when decryption fails.
DecodeStatus decrypt_private_key_info(OSSL_LIB_CTX* libctx, klms::ByteView der, const char* pass, std::size_t pass_len,
                                      lms::SecretBytes& plain);

}  // namespace klms::provider
