// The prefixed one-shot on the LMS lengths against OpenSSL, and the table entries. Streaming at every
// split, reused prefixes and null empty inputs: test/unit/hashes/backend_conformance_test.cpp.
#include "test/unit/hashes/sha2/sha256_test_helpers.h"

namespace klms::test::sha {
namespace {

using Sha256Prefixed = Sha256BackendTest;

// The one-block LMS inputs (n = 32 chain/PRF 55 bytes, leaf 54; n = 24: 47 and 46) with many
// identifiers, since the fast path reads I from the saved state.
TEST_P(Sha256Prefixed, LmsOneBlockLengths) {
  std::mt19937_64 rng(11);
  for (std::size_t len : {39u, 38u, 31u, 30u}) {
    for (int trial = 0; trial < 200; ++trial) {
      const Bytes identifier = random_bytes(rng, 16);
      const Bytes rest = random_bytes(rng, len);
      hashes::PrefixState prefix;
      backend().init_prefix(prefix, identifier.data());
      ASSERT_EQ(hash_one_of(backend(), prefix, rest), openssl_sha256(concat(identifier, rest))) << len;
    }
  }
}

// SHA-256/192 is the first 24 bytes of SHA-256 (docs/params.md "Hash families"): an n = 24 chain step is 47 bytes.
TEST_P(Sha256Prefixed, TruncatedTo24BytesIsAPrefixOfTheDigest) {
  std::mt19937_64 rng(12);
  const Bytes identifier = random_bytes(rng, 16);
  const Bytes rest = random_bytes(rng, 31);
  hashes::PrefixState prefix;
  backend().init_prefix(prefix, identifier.data());
  const Digest full = hash_one_of(backend(), prefix, rest);
  const Digest reference = openssl_sha256(concat(identifier, rest));
  EXPECT_EQ(Digest(full.begin(), full.begin() + 24), Digest(reference.begin(), reference.begin() + 24));
}

TEST_P(Sha256Prefixed, TableEntry) {
  const Backend& b = backend();
  EXPECT_EQ(b.family, hashes::HashFamily::kSha256);
  if (GetParam() == Sha256Kind::kPortable) {
    EXPECT_EQ(b.id, hashes::BackendId::kSha256Portable);
    EXPECT_EQ(b.name, "sha256-portable");
    EXPECT_EQ(b.lanes, 1u);
  } else {
    EXPECT_EQ(b.id, hashes::BackendId::kSha256Hw);
    EXPECT_EQ(b.name, "sha256-hw");
    EXPECT_GE(b.lanes, 2u);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Sha256Prefixed, ::testing::Values(Sha256Kind::kPortable, Sha256Kind::kHw),
                         kind_name);

}  // namespace
}  // namespace klms::test::sha
