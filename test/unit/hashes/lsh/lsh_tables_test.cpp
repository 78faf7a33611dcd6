// The exports of hashes/families.h for LSH: the two backends and the six digest algorithms.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "hashes/families.h"
#include "hashes/lsh/lsh256.h"
#include "hashes/lsh/lsh512.h"
#include "test/unit/hashes/lsh/lsh_test_support.h"

namespace klms::test::lsh {
namespace {

using hashes::Backend;

Bytes concat(const Bytes& a, const Bytes& b) {
  Bytes out(a);
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

void check_backend(const Backend& b) {
  SCOPED_TRACE(std::string(b.name));
  const Bytes identifier = pseudo_random_bytes(16, 11);
  hashes::PrefixState prefix;
  b.init_prefix(prefix, identifier.data());
  for (std::size_t len : {0u, 31u, 39u, 111u, 112u, 2150u}) {
    const Bytes rest = pseudo_random_bytes(len, len + 1);
    const Bytes want = digest256(hashes::lsh256_portable(), 32, concat(identifier, rest));
    Bytes one(32), streamed(32), plain(32);
    b.hash_one(prefix, rest.data(), len, one.data());
    EXPECT_EQ(one, want) << "hash_one " << len;
    hashes::StreamState state;
    b.stream_init(state, prefix);
    b.stream_update(state, rest.data(), len / 3);
    b.stream_update(state, rest.data() + len / 3, len - len / 3);
    b.stream_final(state, streamed.data());
    EXPECT_EQ(streamed, want) << "stream " << len;
    const Bytes whole = concat(identifier, rest);
    b.digest(whole.data(), whole.size(), plain.data());
    EXPECT_EQ(plain, want) << "digest " << len;
    std::vector<Bytes> outs(5, Bytes(32));
    std::vector<const std::uint8_t*> in(5, rest.data());
    std::vector<std::uint8_t*> out;
    for (Bytes& o : outs) out.push_back(o.data());
    b.hash_many(prefix, in.data(), len, out.data(), out.size());
    for (const Bytes& o : outs) EXPECT_EQ(o, want) << "hash_many " << len;
  }
  const Bytes abc = {'a', 'b', 'c'};
  Bytes out(32);
  b.digest(abc.data(), abc.size(), out.data());
  EXPECT_EQ(to_hex(out), "5fbf365daea5446a7053c52b57404d77a07a5f48a1f7c1963a0898ba1b714741");
}

TEST(LshBackends, Reference) {
  const Backend b = hashes::lsh256_ref_backend();
  EXPECT_EQ(b.id, hashes::BackendId::kLsh256Ref);
  EXPECT_EQ(b.family, hashes::HashFamily::kLsh256);
  EXPECT_EQ(b.name, "lsh256-ref");
  EXPECT_EQ(b.implementation, "portable");
  EXPECT_EQ(b.lanes, 1u);
  check_backend(b);
}

TEST(LshBackends, Simd) {
  const Backend b = hashes::lsh256_simd_backend();
  EXPECT_EQ(b.id, hashes::BackendId::kLsh256Simd);
  EXPECT_EQ(b.family, hashes::HashFamily::kLsh256);
  EXPECT_EQ(b.name, "lsh256-simd");
  EXPECT_EQ(b.implementation, hashes::lsh256_fastest().name);
  EXPECT_EQ(b.lanes, hashes::lsh256_fastest().lanes);
  check_backend(b);
}

// The choice follows the measured path table (hashes/cpu_paths.cpp), and is one this CPU runs.
TEST(LshBackends, FastestIsTheTablesChoice) {
  EXPECT_EQ(hashes::lsh256_fastest().isa, hashes::lsh_isa_of(hashes::chosen_path(hashes::PathSlot::kLsh256)));
  EXPECT_EQ(hashes::lsh512_fastest().isa, hashes::lsh_isa_of(hashes::chosen_path(hashes::PathSlot::kLsh512)));
  EXPECT_TRUE(hashes::lsh_isa_supported(hashes::lsh256_fastest().isa));
  EXPECT_TRUE(hashes::lsh_isa_supported(hashes::lsh512_fastest().isa));
  EXPECT_EQ(&hashes::lsh256_fastest(), &hashes::lsh256_fastest());
}

TEST(LshDigestAlgorithms, NamesAndSizes) {
  struct Expect {
    const hashes::DigestAlgorithm& algorithm;
    const char* name;
    std::size_t block, output;
  };
  const Expect all[] = {
      {hashes::lsh256_256_digest(), "LSH-256-256", 128, 32}, {hashes::lsh256_224_digest(), "LSH-256-224", 128, 28},
      {hashes::lsh512_512_digest(), "LSH-512-512", 256, 64}, {hashes::lsh512_384_digest(), "LSH-512-384", 256, 48},
      {hashes::lsh512_256_digest(), "LSH-512-256", 256, 32}, {hashes::lsh512_224_digest(), "LSH-512-224", 256, 28}};
  for (const Expect& e : all) {
    EXPECT_EQ(e.algorithm.name, e.name);
    EXPECT_EQ(e.algorithm.block_size, e.block);
    EXPECT_EQ(e.algorithm.output_size, e.output);
    EXPECT_LE(e.algorithm.context_size, hashes::kMaxDigestContextBytes);
  }
}

// Every known answer through the digest objects, with a memcpy'd context (dupctx) finishing it.
TEST(LshDigestAlgorithms, KnownAnswersThroughDuplicatedContexts) {
  const std::map<std::string, const hashes::DigestAlgorithm*> by_name = {
      {"LSH-256-256", &hashes::lsh256_256_digest()}, {"LSH-256-224", &hashes::lsh256_224_digest()},
      {"LSH-512-512", &hashes::lsh512_512_digest()}, {"LSH-512-384", &hashes::lsh512_384_digest()},
      {"LSH-512-256", &hashes::lsh512_256_digest()}, {"LSH-512-224", &hashes::lsh512_224_digest()}};
  alignas(hashes::kDigestContextAlign) std::uint8_t ctx[hashes::kMaxDigestContextBytes];
  alignas(hashes::kDigestContextAlign) std::uint8_t dup[hashes::kMaxDigestContextBytes];
  for (const KnownAnswer& ka : known_answers()) {
    const hashes::DigestAlgorithm& d = *by_name.at(ka.variant);
    d.init(ctx);
    const std::size_t half = ka.message.size() / 2;
    d.update(ctx, ka.message.data(), half);
    std::memcpy(dup, ctx, d.context_size);
    std::memset(ctx, 0x5a, d.context_size);  // the duplicate must not depend on the original
    d.update(dup, ka.message.data() + half, ka.message.size() - half);
    Bytes out(d.output_size);
    d.final(dup, out.data());
    EXPECT_EQ(to_hex(out), to_hex(ka.digest)) << ka.variant << " " << ka.source;
  }
}

}  // namespace
}  // namespace klms::test::lsh
