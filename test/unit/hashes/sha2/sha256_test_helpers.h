// Shared by the SHA-256 tests: the two backends under test and OpenSSL's libcrypto as the
// independent implementation every answer is checked against (the helpers common with SHAKE256:
// test/support/hash_test_helpers.h).
#pragma once

#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hashes/backend.h"
#include "hashes/families.h"
#include "test/support/hash_test_helpers.h"

namespace klms::test::sha {

using hashes::Backend;

enum class Sha256Kind { kPortable, kHw };

inline std::string kind_name(const ::testing::TestParamInfo<Sha256Kind>& info) {
  return info.param == Sha256Kind::kPortable ? "portable" : "sha_ni";
}

inline const Backend& sha256_backend(Sha256Kind kind) {
  static const Backend portable = hashes::sha256_portable_backend();
  static const Backend hw = hashes::sha256_hw_backend();
  return kind == Sha256Kind::kPortable ? portable : hw;
}

// A test fixture over both SHA-256 backends; the SHA-NI instance skips itself on CPUs without it.
class Sha256BackendTest : public ::testing::TestWithParam<Sha256Kind> {
 protected:
  void SetUp() override {
    if (GetParam() == Sha256Kind::kHw && !hashes::sha256_hw_supported()) GTEST_SKIP() << "no SHA-NI on this CPU";
  }
  const Backend& backend() const { return sha256_backend(GetParam()); }
};

inline Digest openssl_sha256(const Bytes& in) {
  Digest out(SHA256_DIGEST_LENGTH);
  SHA256(in.data(), in.size(), out.data());
  return out;
}

}  // namespace klms::test::sha
