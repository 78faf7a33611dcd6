// Known answers recorded with the XMSS reference implementation (github XMSS/xmss-reference; the
// commands and the seed patch are in test/data/SOURCES.md): keys from fixed seeds and signatures at
// chosen indices, for XMSS and XMSS^MT, SHA-256 and SHAKE256, n = 32 and n = 24. klms makes the same
// public keys from the same seeds on every backend of the hash, the same signatures at the same
// indices, and verifies the reference's signatures.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/support/test_data.h"
#include "test/unit/xmss/xmss_test_util.h"
#include "xmss/verify.h"
#include "xmss/wire_format.h"

namespace klms::xmss {
namespace {

using test::from_hex;
using test::to_hex;

Scheme scheme_of(const Case& c) { return c["Scheme"] == "XMSSMT" ? Scheme::kXmssMt : Scheme::kXmss; }

struct Seeds {
  Bytes sk_seed, sk_prf, pub_seed;
};
Seeds split_seed(const Params& p, const Bytes& seed) {
  const std::size_t n = p.n;
  EXPECT_EQ(seed.size(), 3 * n);
  return {Bytes(seed.begin(), seed.begin() + n), Bytes(seed.begin() + n, seed.begin() + 2 * n),
          Bytes(seed.begin() + 2 * n, seed.end())};
}

// Keys whose top tree has 2^10 leaves are made on the fastest backend of their hash, the others on
// every backend. (A 2^10-leaf tree costs ~1.9 CPU-s on sha256-portable, ~4x that under the
// sanitizers. The portable path still makes a key of every h = 10 XMSS set from outside seeds in
// XmssKat.KeygenFromReferenceSeeds, and a tree of every other layer here; the fused kernels that
// sha256-hw runs and the lock-step path that the other backends run are held to each other by
// XmssChainKernels.*.)
std::vector<const hashes::Backend*> key_backends(const Params& p) {
  if (p.tree_height() <= 5) return backends_of(p.family);
  return {&hashes::fastest_backend(p.family)};
}

TEST(ReferenceVectors, KeysFromTheSameSeedsOnEveryBackend) {
  unsigned keys = 0, xmssmt = 0, n24 = 0, shake = 0, made = 0;
  for (const Case& c : read_cases("xmss/reference_keys.vec")) {
    const Params* p = find_params(c["Params"]);
    ASSERT_NE(p, nullptr) << c["Params"];
    ASSERT_EQ(p->scheme, scheme_of(c));
    const Seeds s = split_seed(*p, from_hex(c["Seed"]));
    for (const hashes::Backend* b : key_backends(*p)) {
      ++made;
      SCOPED_TRACE(std::string(p->name) + " on " + std::string(b->name));
      const TestKey key = make_key(*p, b, s.sk_seed, s.sk_prf, s.pub_seed);
      EXPECT_EQ(to_hex(key.public_key), c["PublicKey"]);
    }
    // The reference's private-key layout, read and written back byte for byte.
    const Bytes sk = from_hex(c["PrivateKey"]);
    const auto parsed = parse_reference_private_key(p->scheme, sk);
    ASSERT_TRUE(parsed.ok()) << describe(parsed.error());
    EXPECT_EQ(parsed->params, p);
    EXPECT_EQ(parsed->idx, 0u);
    EXPECT_EQ(to_hex(Bytes(parsed->sk_seed.data(), parsed->sk_seed.data() + p->n)), to_hex(s.sk_seed));
    EXPECT_EQ(to_hex(Bytes(parsed->pub_seed, parsed->pub_seed + p->n)), to_hex(s.pub_seed));
    const SecretBytes again = encode_reference_private_key(*parsed);
    EXPECT_EQ(to_hex(Bytes(again.begin(), again.end())), c["PrivateKey"]);
    ++keys;
    xmssmt += p->scheme == Scheme::kXmssMt;
    n24 += p->n == 24;
    shake += p->family == HashFamily::kShake256;
  }
  EXPECT_EQ(keys, 12u);
  // 5 keys with 2^10-leaf top trees once; of those with 2^5, 4 SHA-256 keys on every SHA-256 backend
  // and 3 SHAKE256 keys on the one SHAKE256 backend.
  EXPECT_EQ(made, 5u + 3u + 4u * static_cast<unsigned>(backends_of(HashFamily::kSha256).size()));
  EXPECT_EQ(xmssmt, 8u);
  EXPECT_EQ(n24, 5u);
  EXPECT_EQ(shake, 5u);
}

TEST(ReferenceVectors, SameSignaturesAtTheSameIndicesAndTheirsVerify) {
  std::map<std::string, Seeds> seeds;
  for (const Case& c : read_cases("xmss/reference_keys.vec")) {
    const Params* p = find_params(c["Params"]);
    ASSERT_NE(p, nullptr);
    seeds[c["Params"]] = split_seed(*p, from_hex(c["Seed"]));
  }
  std::map<std::string, TestKey> keys;
  unsigned signatures = 0;
  for (const Case& c : read_cases("xmss/reference_signatures.vec")) {
    const Params* p = find_params(c["Params"]);
    ASSERT_NE(p, nullptr) << c["Params"];
    SCOPED_TRACE(std::string(p->name) + " index " + c["Index"]);
    const Bytes pk = from_hex(c["PublicKey"]), msg = from_hex(c["Msg"]), sig = from_hex(c["Signature"]);
    for (const hashes::Backend* b : backends_of(p->family)) {
      EXPECT_EQ(verify(p->scheme, pk, msg, sig, b), Error::kOk) << b->name;
      Bytes other = msg;
      other.push_back(0x00);
      EXPECT_EQ(verify(p->scheme, pk, other, sig, b), Error::kVerifyFailed) << b->name;
    }
    auto it = keys.find(c["Params"]);
    if (it == keys.end()) {
      const Seeds& s = seeds.at(c["Params"]);
      it = keys.emplace(c["Params"], make_key(*p, nullptr, s.sk_seed, s.sk_prf, s.pub_seed)).first;
    }
    ASSERT_NE(it->second.signer, nullptr);
    ASSERT_EQ(to_hex(it->second.public_key), c["PublicKey"]);
    const auto ours = it->second.signer->sign(std::stoull(c["Index"]), msg);
    ASSERT_TRUE(ours.ok()) << describe(ours.error());
    EXPECT_EQ(to_hex(*ours), c["Signature"]);
    ++signatures;
  }
  EXPECT_GE(signatures, 40u);
}

// Flips in every field of a reference XMSS^MT signature (index, r, every layer's chains and path)
// are rejected; so is every byte of the public key after the code.
TEST(ReferenceVectors, TamperedXmssMtSignaturesAreRejected) {
  for (const Case& c : read_cases("xmss/reference_signatures.vec")) {
    if (c["Params"] != "XMSSMT-SHA2_20/4_256" || c["Index"] != "74565") continue;
    const Params& p = *find_params(c["Params"]);
    const Bytes pk = from_hex(c["PublicKey"]), msg = from_hex(c["Msg"]), sig = from_hex(c["Signature"]);
    ASSERT_EQ(verify(p.scheme, pk, msg, sig), Error::kOk);
    unsigned accepted = 0, tried = 0;
    for (std::size_t i = 0; i < sig.size(); i += (i < p.index_bytes() + p.n ? 1 : 11)) {
      for (std::uint8_t flip : {0x01, 0x80}) {
        Bytes bad = sig;
        bad[i] ^= flip;
        const Error e = verify(p.scheme, pk, msg, bad);
        if (e == Error::kOk) ++accepted;
        ++tried;
      }
    }
    EXPECT_EQ(accepted, 0u);
    EXPECT_GT(tried, 1600u);
    for (std::size_t i = 4; i < pk.size(); ++i) {
      Bytes bad = pk;
      bad[i] ^= 0x40;
      EXPECT_EQ(verify(p.scheme, bad, msg, sig), Error::kVerifyFailed) << "public key byte " << i;
    }
    return;
  }
  FAIL() << "the XMSSMT-SHA2_20/4_256 vector at index 74565 is missing";
}

// Signatures made by Botan 2.19 and BouncyCastle 1.72 (interop_signatures.vec) verify with klms on every
// backend of the hash, and a flipped byte in each is refused.
TEST(InteropVectors, BotanAndBouncyCastleSignaturesVerify) {
  std::map<std::string, unsigned> by_source;
  for (const Case& c : read_cases("xmss/interop_signatures.vec")) {
    const Params* p = find_params(c["Params"]);
    ASSERT_NE(p, nullptr) << c["Params"];
    ASSERT_EQ(p->scheme, scheme_of(c));
    SCOPED_TRACE(c["Source"] + " " + c["Params"]);
    const Bytes pk = from_hex(c["PublicKey"]), msg = from_hex(c["Msg"]), sig = from_hex(c["Signature"]);
    for (const hashes::Backend* b : backends_of(p->family)) {
      EXPECT_EQ(verify(p->scheme, pk, msg, sig, b), Error::kOk) << b->name;
    }
    Bytes bad = sig;
    bad[sig.size() / 2] ^= 0x04;
    EXPECT_EQ(verify(p->scheme, pk, msg, bad), Error::kVerifyFailed);
    ++by_source[c["Source"]];
  }
  EXPECT_EQ(by_source["Botan 2.19.3"], 4u);
  EXPECT_EQ(by_source["BouncyCastle 1.72"], 5u);
}

}  // namespace
}  // namespace klms::xmss
