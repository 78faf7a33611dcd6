// Shared by the SHA-256 and SHAKE256 tests: the backends under test, random inputs, and OpenSSL's
// libcrypto as the independent implementation every answer is checked against.
#pragma once

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hashes/backend.h"
#include "hashes/families.h"
#include "test/support/test_data.h"

namespace klms::test::sha {

using hashes::Backend;
using Digest = std::vector<std::uint8_t>;

enum class Sha256Kind { kPortable, kHw };

inline std::string kind_name(const ::testing::TestParamInfo<Sha256Kind>& info) {
  return info.param == Sha256Kind::kPortable ? "portable" : "sha_ni";
}

inline const Backend& sha256_backend(Sha256Kind kind) {
  static const Backend portable = hashes::sha256_portable_backend();
  static const Backend hw = hashes::sha256_hw_backend();
  return kind == Sha256Kind::kPortable ? portable : hw;
}

inline const Backend& shake256() {
  static const Backend backend = hashes::shake256_backend();
  return backend;
}

// A test fixture over both SHA-256 backends; the SHA-NI instance skips itself on CPUs without it.
class Sha256BackendTest : public ::testing::TestWithParam<Sha256Kind> {
 protected:
  void SetUp() override {
    if (GetParam() == Sha256Kind::kHw && !hashes::sha256_hw_supported()) GTEST_SKIP() << "no SHA-NI on this CPU";
  }
  const Backend& backend() const { return sha256_backend(GetParam()); }
};

inline Bytes random_bytes(std::mt19937_64& rng, std::size_t len) {
  Bytes out(len);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

inline Bytes concat(const Bytes& a, const Bytes& b) {
  Bytes out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

inline Digest openssl_sha256(const Bytes& in) {
  Digest out(SHA256_DIGEST_LENGTH);
  SHA256(in.data(), in.size(), out.data());
  return out;
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

inline Digest digest_of(const Backend& b, const Bytes& in) {
  Digest out(hashes::kOutputBytes);
  b.digest(in.data(), in.size(), out.data());
  return out;
}

inline Digest hash_one_of(const Backend& b, const hashes::PrefixState& prefix, const Bytes& rest) {
  Digest out(hashes::kOutputBytes);
  b.hash_one(prefix, rest.data(), rest.size(), out.data());
  return out;
}

// Streams I || data in pieces of the given sizes (which add up to data.size()).
inline Digest stream_of(const Backend& b, const hashes::PrefixState& prefix, const Bytes& data,
                        const std::vector<std::size_t>& pieces) {
  hashes::StreamState state;
  b.stream_init(state, prefix);
  std::size_t at = 0;
  for (std::size_t len : pieces) {
    b.stream_update(state, data.data() + at, len);
    at += len;
  }
  Digest out(hashes::kOutputBytes);
  b.stream_final(state, out.data());
  return out;
}

inline std::string hex(const Digest& d) { return to_hex(d.data(), d.size()); }

}  // namespace klms::test::sha
