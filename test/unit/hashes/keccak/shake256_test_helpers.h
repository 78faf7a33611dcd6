// Shared by the SHAKE256 tests: the backend under test and OpenSSL's EVP SHAKE256 as the independent
// implementation every answer is checked against (the helpers common with SHA-256:
// test/support/hash_test_helpers.h).
#pragma once

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstdint>
#include <vector>

#include "hashes/backend.h"
#include "hashes/families.h"
#include "test/support/hash_test_helpers.h"

namespace klms::test::keccak {

using hashes::Backend;

inline const Backend& shake256() {
  static const Backend backend = hashes::shake256_backend();
  return backend;
}

// SHAKE256 with `out_len` output bytes from the real libcrypto.
inline Digest openssl_shake256(const Bytes& in, std::size_t out_len = 32) {
  Digest out(out_len);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const bool ok = ctx != nullptr && EVP_DigestInit_ex(ctx, EVP_shake256(), nullptr) == 1 &&
                  EVP_DigestUpdate(ctx, in.data(), in.size()) == 1 && EVP_DigestFinalXOF(ctx, out.data(), out_len) == 1;
  EVP_MD_CTX_free(ctx);
  EXPECT_TRUE(ok) << "OpenSSL SHAKE256 failed";
  return out;
}

}  // namespace klms::test::keccak
