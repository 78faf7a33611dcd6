// XMSS / K-XMSS: known answers from the reference implementation (Botan's test data, copied into
// test/data/xmss/), on every backend of each set's hash family; K-XMSS round trips; tampering.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "hashes/backend.h"
#include "test/support/test_data.h"
#include "test/unit/xmss/xmss_test_util.h"
#include "xmss/params.h"
#include "xmss/verify.h"
#include "xmss/wire_format.h"
#include "xmss/wots.h"

namespace klms::xmss {
namespace {

using test::from_hex;
using test::to_hex;

// "SHA2_10_256" or "XMSS-SHA2_10_256" -> the set, null when this library does not have it.
const Params* set_named(const std::string& name) {
  return find_params(name.rfind("XMSS-", 0) == 0 ? name : "XMSS-" + name);
}

// Botan's private-key layout: oid || root || SEED || u32 idx || SK_PRF || SK_SEED [|| derivation]
// (derivation 0x02 = SP 800-208 / reference implementation; 0x01 or absent = Botan 2's own).
struct BotanPrivateKey {
  Bytes public_key, sk_prf, sk_seed;
  std::uint32_t idx = 0;
  int derivation = -1;  // -1: not declared
};
BotanPrivateKey parse_botan_private_key(const Params& p, const Bytes& raw) {
  const std::size_t n = p.n;
  BotanPrivateKey k;
  EXPECT_GE(raw.size(), 4 + 4 + 4 * n);
  k.public_key.assign(raw.begin(), raw.begin() + 4 + 2 * n);
  const std::uint8_t* q = raw.data() + 4 + 2 * n;
  k.idx = std::uint32_t{q[0]} << 24 | std::uint32_t{q[1]} << 16 | std::uint32_t{q[2]} << 8 | q[3];
  k.sk_prf.assign(q + 4, q + 4 + n);
  k.sk_seed.assign(q + 4 + n, q + 4 + 2 * n);
  if (raw.size() == 4 + 4 + 4 * n + 1) k.derivation = raw.back();
  return k;
}

TEST(XmssParams, StandardCodesAndSizes) {
  // RFC 8391 §5.3 and the IANA registry (SP 800-208 codes 0x0D..0x15).
  ASSERT_NE(find_params(Scheme::kXmss, 0x01), nullptr);
  EXPECT_EQ(find_params(Scheme::kXmss, 0x01)->name, "XMSS-SHA2_10_256");
  EXPECT_EQ(find_params(Scheme::kXmss, 0x03)->name, "XMSS-SHA2_20_256");
  EXPECT_EQ(find_params(Scheme::kXmss, 0x0D)->name, "XMSS-SHA2_10_192");
  EXPECT_EQ(find_params(Scheme::kXmss, 0x10)->name, "XMSS-SHAKE256_10_256");
  EXPECT_EQ(find_params(Scheme::kXmss, 0x15)->name, "XMSS-SHAKE256_20_192");
  EXPECT_EQ(find_params(Scheme::kXmss, 0x04), nullptr);  // SHA2_10_512: not approved by SP 800-208
  const Params& p = *find_params("xmss-sha2_10_256");
  EXPECT_EQ(p.len1, 64);
  EXPECT_EQ(p.len2, 3);
  EXPECT_EQ(p.len, 67);
  EXPECT_EQ(p.signature_bytes(), 2500u);  // RFC 8391 §5.3: XMSS-SHA2_10_256 signatures are 2500 bytes
  EXPECT_EQ(p.public_key_bytes(), 68u);
  EXPECT_EQ(find_params("XMSS-SHA2_10_192")->len, 51);
  // w = 4 and w = 256 (the reference implementation's other w): len1 = 128 + len2 = 5; 32 + 2.
  EXPECT_EQ(params_for(HashFamily::kLsh256, 32, 10, 2)->len, 133);
  EXPECT_EQ(params_for(HashFamily::kLsh256, 32, 10, 8)->len, 34);
  // K-XMSS codes (docs/xmss.md): 0xE0000000 | hash << 16 | log2(w) << 8 | h.
  ASSERT_NE(find_params(Scheme::kXmss, 0xE001040Au), nullptr);
  EXPECT_EQ(find_params(Scheme::kXmss, 0xE001040Au)->name, "K-XMSS-LSH256_10_256");
  EXPECT_EQ(find_params(Scheme::kXmss, 0xE0040214u)->name, "K-XMSS-TDMARIA_20_256_w4");
  EXPECT_EQ(find_params("K-XMSS-TDMCHAM_16_256")->oid, 0xE0020410u);
}

TEST(XmssKat, KeygenFromReferenceSeeds) {
  unsigned matched = 0, skipped = 0;
  for (const Case& c : read_cases("xmss/xmss_keygen_reference.vec")) {
    const Params* p = set_named(c["Params"]);
    if (p == nullptr) {
      ++skipped;  // SHA-512 and SHAKE128 sets
      continue;
    }
    const Bytes sk_seed = from_hex(c["SecretSeed"]), pub_seed = from_hex(c["PublicSeed"]),
                sk_prf = from_hex(c["SecretPrf"]);
    ASSERT_EQ(sk_seed.size(), p->n);
    const auto backends = backends_of(p->family);
    ASSERT_FALSE(backends.empty());
    for (const hashes::Backend* b : backends) {
      SCOPED_TRACE(std::string(p->name) + " on " + std::string(b->name));
      const TestKey key = make_key(*p, b, sk_seed, sk_prf, pub_seed);
      EXPECT_EQ(to_hex(key.public_key), c["PublicKey"]);
      // The whole private key in Botan's layout, declaring the SP 800-208 derivation.
      Bytes botan = key.public_key;
      botan.insert(botan.end(), {0, 0, 0, 0});
      botan.insert(botan.end(), sk_prf.begin(), sk_prf.end());
      botan.insert(botan.end(), sk_seed.begin(), sk_seed.end());
      botan.push_back(0x02);
      EXPECT_EQ(to_hex(botan), c["PrivateKey"]);
    }
    ++matched;
  }
  EXPECT_EQ(matched, 4u);  // SHA2_10_256, SHA2_10_192, SHAKE256_10_256, SHAKE256_10_192
  EXPECT_EQ(skipped, 3u);
}

TEST(XmssKat, SignaturesFromReferenceKeys) {
  unsigned signed_cases = 0, verified = 0, legacy = 0;
  for (const Case& c : read_cases("xmss/xmss_sig.vec")) {
    const Params* p = set_named(c["Params"]);
    if (p == nullptr) continue;
    SCOPED_TRACE(std::string(p->name) + " message " + c["Msg"]);
    const Bytes msg = from_hex(c["Msg"]);
    const Bytes signature = from_hex(c["Signature"]);
    const BotanPrivateKey k = parse_botan_private_key(*p, from_hex(c["PrivateKey"]));
    // Verification does not depend on how the WOTS+ keys were derived: every case verifies.
    EXPECT_EQ(verify(Scheme::kXmss, k.public_key, msg, signature), Error::kOk);
    ++verified;
    if (k.derivation != 0x02) {
      ++legacy;  // Botan 2's own WOTS+ derivation: no other implementation can re-create the key
      continue;
    }
    const TestKey key = make_key(*p, nullptr, k.sk_seed, k.sk_prf, ByteView(k.public_key).subspan(4 + p->n, p->n));
    ASSERT_EQ(to_hex(key.public_key), to_hex(k.public_key));
    const auto ours = key.signer->sign(k.idx, msg);
    ASSERT_EQ(ours.error(), Error::kOk);
    EXPECT_EQ(to_hex(*ours), c["Signature"]);
    ++signed_cases;
  }
  EXPECT_EQ(verified, 15u);
  EXPECT_EQ(signed_cases, 12u);
  EXPECT_EQ(legacy, 3u);
}

TEST(XmssKat, VerifyVectorsOnEveryBackend) {
  unsigned verified = 0, skipped = 0;
  for (const Case& c : read_cases("xmss/xmss_verify.vec")) {
    const Params* p = set_named(c["Params"]);
    if (p == nullptr) {
      ++skipped;
      continue;
    }
    const Bytes pk = from_hex(c["PublicKey"]), msg = from_hex(c["Msg"]), sig = from_hex(c["Signature"]);
    for (const hashes::Backend* b : backends_of(p->family)) {
      SCOPED_TRACE(std::string(p->name) + " on " + std::string(b->name));
      EXPECT_EQ(verify(Scheme::kXmss, pk, msg, sig, b), Error::kOk);
      Bytes other = msg;
      other.push_back(0x00);
      EXPECT_EQ(verify(Scheme::kXmss, pk, other, sig, b), Error::kVerifyFailed);
    }
    ++verified;
  }
  EXPECT_EQ(verified, 36u);  // 12 sets (SHA2/SHAKE256 x 256/192 x h 10/16/20), 3 messages each
  EXPECT_EQ(skipped, 27u);
}

// Every byte of a signature flipped (one at a time) must be rejected, and so must every byte of the
// public key after the type code.
void expect_every_flip_rejected(const Bytes& pk, const Bytes& msg, const Bytes& sig, const hashes::Backend* b) {
  ASSERT_EQ(verify(Scheme::kXmss, pk, msg, sig, b), Error::kOk);
  unsigned accepted = 0;
  for (std::size_t i = 0; i < sig.size(); ++i) {
    Bytes bad = sig;
    bad[i] ^= 0x01;
    if (verify(Scheme::kXmss, pk, msg, bad, b) == Error::kOk) ++accepted;
    bad[i] ^= 0x81;
    if (verify(Scheme::kXmss, pk, msg, bad, b) == Error::kOk) ++accepted;
  }
  EXPECT_EQ(accepted, 0u);
  for (std::size_t i = 4; i < pk.size(); ++i) {
    Bytes bad = pk;
    bad[i] ^= 0x40;
    EXPECT_EQ(verify(Scheme::kXmss, bad, msg, sig, b), Error::kVerifyFailed) << "public key byte " << i;
  }
}

TEST(XmssTamper, StandardVectorEveryByte) {
  const auto cases = read_cases("xmss/xmss_verify.vec");
  ASSERT_FALSE(cases.empty());
  const Case& c = cases[1];  // SHA2_10_256, message 01020304
  ASSERT_EQ(c["Params"], "SHA2_10_256");
  expect_every_flip_rejected(from_hex(c["PublicKey"]), from_hex(c["Msg"]), from_hex(c["Signature"]), nullptr);
}

TEST(XmssParse, StrictLengthsTypesAndIndex) {
  const auto cases = read_cases("xmss/xmss_verify.vec");
  const Bytes pk = from_hex(cases[0]["PublicKey"]), msg = from_hex(cases[0]["Msg"]),
              sig = from_hex(cases[0]["Signature"]);
  ASSERT_EQ(verify(Scheme::kXmss, pk, msg, sig), Error::kOk);
  Bytes longer = sig;
  longer.push_back(0);
  EXPECT_EQ(verify(Scheme::kXmss, pk, msg, longer), Error::kMalformedSignature);
  EXPECT_EQ(verify(Scheme::kXmss, pk, msg, Bytes(sig.begin(), sig.end() - 1)), Error::kMalformedSignature);
  EXPECT_EQ(verify(Scheme::kXmss, pk, msg, Bytes{}), Error::kMalformedSignature);
  EXPECT_EQ(parse_signature(*find_params(Scheme::kXmss, 0x01), Bytes(sig.begin(), sig.end() - 1)).error(),
            Error::kMalformedSignature);
  Bytes index = sig;
  index[2] = 0x04;  // idx = 1024 = 2^h
  EXPECT_EQ(verify(Scheme::kXmss, pk, msg, index), Error::kMalformedSignature);
  Bytes unknown = pk;
  unknown[3] = 0x04;  // XMSS-SHA2_10_512: not supported
  EXPECT_EQ(verify(Scheme::kXmss, unknown, msg, sig), Error::kUnknownXmssType);
  EXPECT_EQ(parse_public_key(Scheme::kXmss, unknown).error(), Error::kUnknownXmssType);
  unknown[3] = 0x00;
  EXPECT_EQ(verify(Scheme::kXmss, unknown, msg, sig), Error::kUnknownXmssType);
  EXPECT_EQ(verify(Scheme::kXmss, Bytes(pk.begin(), pk.end() - 1), msg, sig), Error::kMalformedPublicKey);
  EXPECT_EQ(verify(Scheme::kXmss, Bytes(pk.begin(), pk.begin() + 3), msg, sig), Error::kMalformedPublicKey);
  Bytes pk_long = pk;
  pk_long.push_back(0);
  EXPECT_EQ(verify(Scheme::kXmss, pk_long, msg, sig), Error::kMalformedPublicKey);
  EXPECT_EQ(parse_public_key(Scheme::kXmss, pk_long).error(), Error::kMalformedPublicKey);
  // A backend of another family is refused, not silently used.
  const auto view = parse_public_key(Scheme::kXmss, pk);
  ASSERT_EQ(view.error(), Error::kOk);
  EXPECT_EQ(verify(*view, hashes::fastest_backend(HashFamily::kLsh256), msg, sig), Error::kBackendMismatch);
}

// The errors are base/'s (base/error.h), each specific, with its own description.
TEST(XmssErrors, ParamsForRefusesImpossibleSets) {
  ASSERT_TRUE(params_for(HashFamily::kLsh256, 32, 10, 4).ok());
  EXPECT_EQ(params_for(HashFamily::kLsh256, 16, 10, 4).error(), Error::kUnknownXmssType);  // n
  EXPECT_EQ(params_for(HashFamily::kLsh256, 32, 10, 3).error(), Error::kUnknownXmssType);  // w = 8
  EXPECT_EQ(params_for(HashFamily::kLsh256, 32, 1, 4).error(), Error::kUnknownXmssType);   // h below 2
  EXPECT_EQ(params_for(HashFamily::kLsh256, 32, kMaxTreeHeight + 1, 4).error(), Error::kUnknownXmssType);
  EXPECT_EQ(params_for(static_cast<HashFamily>(0xEE), 32, 10, 4).error(), Error::kUnknownXmssType);
  EXPECT_NE(std::string(describe(Error::kUnknownXmssType)).find("XMSS"), std::string::npos);
  EXPECT_NE(std::string(describe(Error::kBackendMismatch)), describe(Error::kInternal));
}

TEST(XmssErrors, KeyFromSeedsChecksBackendAndSeedLengths) {
  const Params& p = *find_params("K-XMSS-LSH256_10_256");
  const Bytes seed(32, 0x11), short_seed(31, 0x11);
  const hashes::Backend& sha = hashes::fastest_backend(HashFamily::kSha256);
  const BuildOptions options;
  EXPECT_EQ(generate_key_from_seeds(p, seed, seed, seed, options, &sha).error(), Error::kBackendMismatch);
  EXPECT_EQ(generate_key(p, options, &sha).error(), Error::kBackendMismatch);
  const hashes::Backend& lsh = hashes::fastest_backend(HashFamily::kLsh256);
  EXPECT_EQ(generate_key_from_seeds(p, short_seed, seed, seed, options, &lsh).error(), Error::kBadSeedLength);
  EXPECT_EQ(generate_key_from_seeds(p, seed, short_seed, seed, options, &lsh).error(), Error::kBadSeedLength);
  EXPECT_EQ(generate_key_from_seeds(p, seed, seed, Bytes(33, 0x11), options, &lsh).error(), Error::kBadSeedLength);
}

TEST(XmssErrors, SignatureOfTheWrongLength) {
  const Params& p = *find_params("XMSS-SHA2_10_256");
  const Bytes sig(p.signature_bytes(), 0);
  ASSERT_TRUE(parse_signature(p, sig).ok());
  EXPECT_EQ(parse_signature(p, Bytes(p.signature_bytes() - 1, 0)).error(), Error::kMalformedSignature);
  EXPECT_EQ(parse_signature(p, Bytes(p.signature_bytes() + 1, 0)).error(), Error::kMalformedSignature);
  EXPECT_EQ(parse_signature(p, Bytes{}).error(), Error::kMalformedSignature);
}

TEST(KXmss, RoundTripLsh256AndTampering) {
  const Params& p = *find_params("K-XMSS-LSH256_10_256");
  const hashes::Backend& b = hashes::fastest_backend(HashFamily::kLsh256);
  TestKey key = random_key(p, &b);
  const Bytes pk = key.public_key;
  EXPECT_EQ(pk.size(), 68u);
  EXPECT_EQ(pk[0], 0xE0);
  const Bytes msg = {'K', '-', 'X', 'M', 'S', 'S'};
  const auto signed0 = key.signer->sign(0, msg), signed1 = key.signer->sign(1023, msg),
             signed_again = key.signer->sign(0, msg);
  ASSERT_EQ(signed0.error(), Error::kOk);
  ASSERT_EQ(signed1.error(), Error::kOk);
  ASSERT_EQ(signed_again.error(), Error::kOk);
  const Bytes &sig0 = *signed0, &sig1 = *signed1, &again = *signed_again;
  EXPECT_EQ(sig0, again);  // deterministic at one index
  EXPECT_NE(sig0, sig1);
  EXPECT_EQ(sig0.size(), 2500u);
  EXPECT_EQ(verify(Scheme::kXmss, pk, msg, sig1), Error::kOk);
  EXPECT_EQ(key.signer->sign(1024, msg).error(), Error::kExhausted);
  // The index is 64 bits wide: 2^32 is past the key, not index 0 again after a narrowing.
  EXPECT_EQ(key.signer->sign(std::uint64_t{1} << 32, msg).error(), Error::kExhausted);
  // Every LSH-256 backend verifies what the fastest signed.
  for (const hashes::Backend* other : backends_of(HashFamily::kLsh256)) {
    EXPECT_EQ(verify(Scheme::kXmss, pk, msg, sig0, other), Error::kOk) << other->name;
  }
  expect_every_flip_rejected(pk, msg, sig0, &b);
  // The same seeds under the standard SHA-256 set give another key: only the hash differs, but it
  // does differ (the type code also names the hash).
  Bytes renamed = pk;
  renamed[0] = 0;
  renamed[1] = 0;
  renamed[2] = 0;
  renamed[3] = 1;  // claims XMSS-SHA2_10_256
  EXPECT_EQ(verify(Scheme::kXmss, renamed, msg, sig0), Error::kVerifyFailed);
}

TEST(KXmss, RoundTripEveryFamilyAndWinternitz) {
  const Bytes msg(1000, 0x5A);
  for (HashFamily f : {HashFamily::kLsh256, HashFamily::kTdmCham, HashFamily::kTdmLea, HashFamily::kTdmAria,
                       HashFamily::kSha256, HashFamily::kShake256}) {
    for (unsigned log_w : {2u, 4u, 8u}) {
      const auto p = params_for(f, 32, 4, log_w);  // h = 4: a study size, quick to build
      ASSERT_TRUE(p.ok()) << describe(p.error());
      for (const hashes::Backend* b : backends_of(f)) {
        SCOPED_TRACE(std::string(b->name) + " w=" + std::to_string(p->w()));
        TestKey key = random_key(*p, b);
        const Bytes& pk = key.public_key;
        PublicKeyView view{&*p, ByteView(pk).subspan(4, 32), ByteView(pk).subspan(36, 32)};
        for (std::uint32_t idx : {0u, 7u, 15u}) {
          const auto signed_idx = key.signer->sign(idx, msg);
          ASSERT_EQ(signed_idx.error(), Error::kOk);
          const Bytes& sig = *signed_idx;
          EXPECT_EQ(sig.size(), p->signature_bytes());
          EXPECT_EQ(verify(view, *b, msg, sig), Error::kOk);
          Bytes bad = sig;
          bad[4 + 32 + 5] ^= 0x10;  // a WOTS+ chain value
          EXPECT_EQ(verify(view, *b, msg, bad), Error::kVerifyFailed);
          Bytes other = msg;
          other[999] ^= 1;
          EXPECT_EQ(verify(view, *b, other, sig), Error::kVerifyFailed);
        }
      }
    }
  }
}

TEST(XmssWots, ChecksumDigits) {
  // All-zero digest: every message digit 0, checksum len1 (w - 1) spread over len2 digits.
  const Params& p = *find_params("XMSS-SHA2_10_256");
  std::uint8_t digest[32] = {};
  std::uint8_t digits[kMaxLen];
  message_digits(p, digest, digits);
  for (unsigned i = 0; i < 64; ++i) EXPECT_EQ(digits[i], 0);
  // 64 * 15 = 960 = 0x3C0 -> digits 3, C, 0.
  EXPECT_EQ(digits[64], 0x3);
  EXPECT_EQ(digits[65], 0xC);
  EXPECT_EQ(digits[66], 0x0);
  // w = 256: 32 * 255 = 8160 = 0x1FE0 -> 0x1F, 0xE0 (the high byte kept).
  const auto p8 = params_for(HashFamily::kLsh256, 32, 10, 8);
  message_digits(*p8, digest, digits);
  EXPECT_EQ(digits[32], 0x1F);
  EXPECT_EQ(digits[33], 0xE0);
}

}  // namespace
}  // namespace klms::xmss
