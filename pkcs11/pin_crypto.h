// The token's secrets at rest (docs/pkcs11.md "Storage"): a PIN becomes a key-encryption key by
// scrypt (RFC 7914, OpenSSL's EVP_KDF "SCRYPT"), and keys are sealed with AES-256-GCM (a random
// 96-bit nonce per seal, the 128-bit tag, associated data naming what is sealed). Everything here
// runs in a library context of the module's own with OpenSSL's default provider, so that an
// application's configuration cannot swap the algorithms underneath.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/bytes.h"
#include "base/error.h"
#include "base/secret.h"

namespace klms::pkcs11 {

inline constexpr std::size_t kTokenKeyBytes = 32;
inline constexpr std::size_t kSaltBytes = 16;
inline constexpr std::size_t kNonceBytes = 12;
inline constexpr std::size_t kTagBytes = 16;

// scrypt's cost: N = 2^log_n, r, p. What a new PIN wrap uses is chosen in docs/pkcs11.md
// "PIN cost"; an existing wrap keeps the parameters it records.
struct ScryptCost {
  unsigned log_n = 15;
  unsigned r = 8;
  unsigned p = 1;
};
inline constexpr unsigned kMinLogN = 10;
inline constexpr unsigned kMaxLogN = 22;
bool scrypt_cost_valid(const ScryptCost& cost) noexcept;

using TokenKey = SecretArray<kTokenKeyBytes>;

// scrypt(pin, salt) -> 32 bytes. False when OpenSSL fails (no memory for N, ...).
bool derive_key(ByteView pin, ByteView salt, const ScryptCost& cost, TokenKey& out) noexcept;

// nonce || ciphertext || tag of `plaintext`; empty when OpenSSL fails.
Bytes seal(const TokenKey& key, ByteView plaintext, std::string_view associated) noexcept;
// The plaintext; false when the tag does not verify (a wrong key, other associated data, any
// changed byte) or the input is too short.
bool open_sealed(const TokenKey& key, ByteView sealed, std::string_view associated, SecretBytes& out) noexcept;

// Random bytes from the module's own library context; false when the generator fails.
bool random_bytes(std::uint8_t* out, std::size_t n) noexcept;

}  // namespace klms::pkcs11
