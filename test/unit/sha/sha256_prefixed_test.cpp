// The prefixed one-shot against streaming at every split point, the LMS lengths, and the table entries.
#include "test/unit/sha/sha_test_helpers.h"

namespace klms::test::sha {
namespace {

using Sha256Prefixed = Sha256BackendTest;

// Every split of rest into two updates (and three, around the block edges) matches hash_one.
TEST_P(Sha256Prefixed, StreamingAtEverySplitPoint) {
  std::mt19937_64 rng(10);
  for (std::size_t len : {0u, 1u, 31u, 39u, 47u, 48u, 55u, 70u, 111u, 112u, 113u, 200u, 300u}) {
    const Bytes identifier = random_bytes(rng, 16);
    const Bytes rest = random_bytes(rng, len);
    hashes::PrefixState prefix;
    backend().init_prefix(prefix, identifier.data());
    const Digest expected = openssl_sha256(concat(identifier, rest));
    ASSERT_EQ(hash_one_of(backend(), prefix, rest), expected) << len;
    for (std::size_t split = 0; split <= len; ++split) {
      ASSERT_EQ(stream_of(backend(), prefix, rest, {split, len - split}), expected) << len << " at " << split;
      if (split <= len / 2) {
        ASSERT_EQ(stream_of(backend(), prefix, rest, {split, 0, split, len - 2 * split}), expected)
            << len << " at " << split << " twice";
      }
    }
  }
}

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

// A prefix state is read-only: hashing with it twice, or after another key's prefix, changes nothing.
TEST_P(Sha256Prefixed, PrefixStateIsReusable) {
  std::mt19937_64 rng(13);
  const Bytes id1 = random_bytes(rng, 16), id2 = random_bytes(rng, 16), rest = random_bytes(rng, 39);
  hashes::PrefixState p1, p2;
  backend().init_prefix(p1, id1.data());
  const Digest first = hash_one_of(backend(), p1, rest);
  backend().init_prefix(p2, id2.data());
  EXPECT_EQ(hash_one_of(backend(), p1, rest), first);
  EXPECT_NE(hash_one_of(backend(), p2, rest), first);
  EXPECT_EQ(first, openssl_sha256(concat(id1, rest)));
}

// Empty updates and an empty digest may pass a null pointer (UBSan checks the memcpy arguments).
TEST_P(Sha256Prefixed, NullPointerWithZeroLength) {
  std::mt19937_64 rng(14);
  const Bytes identifier = random_bytes(rng, 16), data = random_bytes(rng, 10);
  hashes::PrefixState prefix;
  backend().init_prefix(prefix, identifier.data());
  hashes::StreamState state;
  backend().stream_init(state, prefix);
  backend().stream_update(state, nullptr, 0);
  backend().stream_update(state, data.data(), data.size());
  backend().stream_update(state, nullptr, 0);
  Digest out(32);
  backend().stream_final(state, out.data());
  EXPECT_EQ(out, openssl_sha256(concat(identifier, data)));
  backend().digest(nullptr, 0, out.data());
  EXPECT_EQ(out, openssl_sha256({}));
  backend().hash_one(prefix, nullptr, 0, out.data());
  EXPECT_EQ(out, openssl_sha256(identifier));
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
