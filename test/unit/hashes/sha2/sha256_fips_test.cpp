// The FIPS 180-4 long example (one million 'a'), one-shot and streamed in odd pieces. The short
// examples (test/data/sha2) run through every backend in test/unit/hashes/backend_conformance_test.cpp.
#include <string>

#include "test/unit/hashes/sha2/sha256_test_helpers.h"

namespace klms::test::sha {
namespace {

using Sha256Fips = Sha256BackendTest;

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
