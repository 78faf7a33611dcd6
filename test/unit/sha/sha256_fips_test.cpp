// FIPS 180-4 / NIST example messages (the published digests), through every entry point.
#include <string>

#include "test/unit/sha/sha_test_helpers.h"

namespace klms::test::sha {
namespace {

Bytes ascii(const std::string& s) { return Bytes(s.begin(), s.end()); }

struct Example {
  std::string message;
  std::string digest;
};

const Example kExamples[] = {
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
};

using Sha256Fips = Sha256BackendTest;

TEST_P(Sha256Fips, ExampleMessagesDigest) {
  for (const Example& e : kExamples) {
    EXPECT_EQ(hex(digest_of(backend(), ascii(e.message))), e.digest) << '"' << e.message << '"';
  }
}

// The prefixed entry points see the first 16 bytes as I: the 56-byte example splits into I and rest.
TEST_P(Sha256Fips, ExampleMessageThroughPrefix) {
  const Bytes message = ascii(kExamples[2].message);
  hashes::PrefixState prefix;
  backend().init_prefix(prefix, message.data());
  const Bytes rest(message.begin() + 16, message.end());
  EXPECT_EQ(hex(hash_one_of(backend(), prefix, rest)), kExamples[2].digest);
  EXPECT_EQ(hex(stream_of(backend(), prefix, rest, {rest.size()})), kExamples[2].digest);
}

TEST_P(Sha256Fips, OneMillionA) {
  const std::string expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  const Bytes million(1000000, 'a');
  EXPECT_EQ(hex(digest_of(backend(), million)), expected);
  // Streaming in odd pieces, after 16 'a's taken as I.
  hashes::PrefixState prefix;
  backend().init_prefix(prefix, million.data());
  hashes::StreamState state;
  backend().stream_init(state, prefix);
  std::size_t fed = 16;
  for (std::size_t piece = 1; fed < million.size(); piece = piece * 7 % 1000 + 1) {
    const std::size_t len = std::min(piece, million.size() - fed);
    backend().stream_update(state, million.data() + fed, len);
    fed += len;
  }
  Digest out(32);
  backend().stream_final(state, out.data());
  EXPECT_EQ(hex(out), expected);
}

INSTANTIATE_TEST_SUITE_P(Backends, Sha256Fips, ::testing::Values(Sha256Kind::kPortable, Sha256Kind::kHw), kind_name);

}  // namespace
}  // namespace klms::test::sha
