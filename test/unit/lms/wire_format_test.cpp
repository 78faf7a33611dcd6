// The wire format of lms/wire_format.h: the writers rebuild the RFC 8554 Appendix F and Botan
// vectors byte for byte from their parsed fields, and for every compatible pair of parameter sets
// what is written parses back to the same fields, while every truncation and every extension by
// one byte is refused.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

#include "lms/wire_format.h"
#include "test/support/test_data.h"

namespace klms::lms {
namespace {

using test::Bytes;
using test::from_hex;

std::vector<LevelParams> compatible_pairs() {
  std::vector<LevelParams> out;
  for (const LmsParams& lms : all_lms()) {
    for (const OtsParams& ots : all_ots()) {
      if (compatible(lms, ots)) out.push_back({&lms, &ots});
    }
  }
  return out;
}

std::string name_of(const LevelParams& l) { return std::string(l.lms->name) + "/" + std::string(l.ots->name); }

// Distinct bytes per field, so a field read from the wrong offset is seen.
void fill(std::uint8_t* p, std::size_t n, std::uint8_t start) {
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::uint8_t>(start + i * 7);
}

bool same(ByteView v, const std::uint8_t* expected, std::size_t n) {
  return v.size() == n && std::memcmp(v.data(), expected, n) == 0;
}

Bytes lms_public_key_of(const LevelParams& l, std::uint8_t seed) {
  std::uint8_t identifier[kIdentifierBytes];
  std::uint8_t root[kMaxHashBytes];
  fill(identifier, sizeof identifier, seed);
  fill(root, l.lms->m, static_cast<std::uint8_t>(seed + 100));
  Bytes out(l.public_key_bytes());
  write_lms_public_key(l, identifier, root, out.data());
  return out;
}

Bytes lms_signature_of(const LevelParams& l, std::uint32_t q, std::uint8_t seed) {
  Bytes out(l.signature_bytes());
  const LmsSignatureSlots slots = write_lms_signature_frame(l, q, out.data());
  fill(slots.randomizer, l.ots->n, seed);
  fill(slots.chains, std::size_t{l.ots->p} * l.ots->n, static_cast<std::uint8_t>(seed + 1));
  fill(slots.path, std::size_t{l.lms->h} * l.lms->m, static_cast<std::uint8_t>(seed + 2));
  EXPECT_EQ(slots.path + std::size_t{l.lms->h} * l.lms->m, out.data() + out.size()) << name_of(l);
  return out;
}

// The re-encoding of a parsed HSS signature with the writers alone.
Bytes rewrite_hss_signature(const HssSignatureParts& parts) {
  std::vector<Bytes> sigs, keys;
  for (std::uint32_t i = 0; i < parts.levels; ++i) {
    const LmsSignatureView& s = parts.sigs[i];
    Bytes sig(s.params.signature_bytes());
    const LmsSignatureSlots slots = write_lms_signature_frame(s.params, s.q, sig.data());
    std::memcpy(slots.randomizer, s.randomizer.data(), s.randomizer.size());
    std::memcpy(slots.chains, s.chains.data(), s.chains.size());
    std::memcpy(slots.path, s.path.data(), s.path.size());
    sigs.push_back(sig);
    const LmsPublicKeyView& k = parts.keys[i];
    Bytes key(k.params.public_key_bytes());
    write_lms_public_key(k.params, k.identifier.data(), k.root.data(), key.data());
    keys.push_back(key);
  }
  std::vector<SignedPublicKey> signed_keys;
  std::size_t total = 4 + sigs.back().size();
  for (std::uint32_t i = 0; i + 1 < parts.levels; ++i) {
    signed_keys.push_back({sigs[i], keys[i + 1]});
    total += sigs[i].size() + keys[i + 1].size();
  }
  Bytes out(total);
  auto bottom = write_hss_signature_head(signed_keys, out);
  EXPECT_TRUE(bottom);
  if (!bottom || bottom->size() != sigs.back().size()) return {};
  std::memcpy(bottom->data(), sigs.back().data(), sigs.back().size());
  return out;
}

struct Vector {
  std::string name;
  Bytes public_key, signature;
};

std::vector<Vector> known_vectors() {
  std::vector<Vector> out;
  // RFC 8554 Appendix F: [section] then key = value lines.
  Vector current;
  for (const std::string& raw : test::read_lines("lms/rfc8554_appendixF.txt")) {
    const std::string_view line = test::trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {
      if (!current.name.empty()) out.push_back(current);
      current = Vector{std::string(line), {}, {}};
      continue;
    }
    std::string k, v;
    if (!test::split_key_value(line, k, v)) continue;
    if (k == "public_key") current.public_key = from_hex(v);
    if (k == "signature") current.signature = from_hex(v);
  }
  if (!current.name.empty()) out.push_back(current);
  // Botan's valid signatures (its .vec records end at the signature line).
  Bytes key;
  int record = 0;
  for (const std::string& raw : test::read_lines("lms/botan/hss_lms_verify.vec")) {
    std::string k, v;
    const std::string_view line = test::trim(raw);
    if (line.empty() || line.front() == '#' || !test::split_key_value(line, k, v)) continue;
    if (k == "PublicKey") key = from_hex(v);
    if (k == "Signature") out.push_back({"botan " + std::to_string(++record), key, from_hex(v)});
  }
  return out;
}

TEST(WireFormat, WritersRebuildKnownVectors) {
  const std::vector<Vector> vectors = known_vectors();
  ASSERT_EQ(vectors.size(), 7u);  // 2 of RFC 8554 Appendix F, 5 of Botan
  for (const Vector& v : vectors) {
    SCOPED_TRACE(v.name);
    ASSERT_FALSE(v.public_key.empty());
    ASSERT_FALSE(v.signature.empty());
    HssSignatureParts parts;
    ASSERT_EQ(parse_hss_signature(v.public_key, v.signature, parts), Error::kOk);
    const LmsPublicKeyView& top = parts.keys[0];
    EXPECT_EQ(encode_hss_public_key(parts.levels, top.params, top.identifier.data(), top.root.data()), v.public_key);
    EXPECT_EQ(hss_public_key_bytes(top.params), v.public_key.size());
    EXPECT_EQ(rewrite_hss_signature(parts), v.signature);
    std::vector<LevelParams> levels;
    for (std::uint32_t i = 0; i < parts.levels; ++i) levels.push_back(parts.sigs[i].params);
    EXPECT_EQ(hss_signature_bytes(levels), v.signature.size());
  }
}

TEST(WireFormat, LmsPublicKeyEverySet) {
  for (const LevelParams& l : compatible_pairs()) {
    SCOPED_TRACE(name_of(l));
    const Bytes pub = lms_public_key_of(l, 3);
    auto key = parse_lms_public_key(pub);
    ASSERT_TRUE(key);
    EXPECT_EQ(key->params.lms, l.lms);
    EXPECT_EQ(key->params.ots, l.ots);
    std::uint8_t identifier[kIdentifierBytes], root[kMaxHashBytes];
    fill(identifier, sizeof identifier, 3);
    fill(root, l.lms->m, 103);
    EXPECT_TRUE(same(key->identifier, identifier, kIdentifierBytes));
    EXPECT_TRUE(same(key->root, root, l.lms->m));
    EXPECT_EQ(key->encoded.data(), pub.data());
    EXPECT_EQ(key->encoded.size(), pub.size());
    for (std::size_t len = 0; len < pub.size(); ++len) {
      std::size_t consumed = 0;
      EXPECT_FALSE(parse_lms_public_key_prefix(ByteView(pub.data(), len), consumed)) << len;
      EXPECT_FALSE(parse_lms_public_key(ByteView(pub.data(), len))) << len;
    }
    Bytes extended = pub;
    extended.push_back(0);
    EXPECT_EQ(parse_lms_public_key(extended).error(), Error::kMalformedPublicKey);
    std::size_t consumed = 0;
    ASSERT_TRUE(parse_lms_public_key_prefix(extended, consumed));
    EXPECT_EQ(consumed, pub.size());
  }
}

TEST(WireFormat, LmsSignatureEverySet) {
  for (const LevelParams& l : compatible_pairs()) {
    SCOPED_TRACE(name_of(l));
    const std::uint32_t last = static_cast<std::uint32_t>(l.lms->leaves() - 1);
    for (const std::uint32_t q : {0u, last}) {
      const Bytes sig = lms_signature_of(l, q, 9);
      std::size_t consumed = 0;
      auto parsed = parse_lms_signature_prefix(sig, consumed);
      ASSERT_TRUE(parsed);
      EXPECT_EQ(consumed, sig.size());
      EXPECT_EQ(parsed->q, q);
      EXPECT_EQ(parsed->params.lms, l.lms);
      EXPECT_EQ(parsed->params.ots, l.ots);
      Bytes expect(std::size_t{l.ots->p} * l.ots->n + std::size_t{l.lms->h} * l.lms->m + l.ots->n);
      fill(expect.data(), l.ots->n, 9);
      EXPECT_TRUE(same(parsed->randomizer, expect.data(), l.ots->n));
      fill(expect.data(), std::size_t{l.ots->p} * l.ots->n, 10);
      EXPECT_TRUE(same(parsed->chains, expect.data(), std::size_t{l.ots->p} * l.ots->n));
      fill(expect.data(), std::size_t{l.lms->h} * l.lms->m, 11);
      EXPECT_TRUE(same(parsed->path, expect.data(), std::size_t{l.lms->h} * l.lms->m));
      for (std::size_t len = 0; len < sig.size(); ++len) {
        std::size_t used = 0;
        if (parse_lms_signature_prefix(ByteView(sig.data(), len), used)) ADD_FAILURE() << "parsed at " << len;
      }
      Bytes extended = sig;
      extended.push_back(0);
      ASSERT_TRUE(parse_lms_signature_prefix(extended, consumed));
      EXPECT_EQ(consumed, sig.size());  // the prefix parser stops at its end; HSS refuses the rest
    }
    // q = 2^h names no leaf.
    if (l.lms->h < 32) {
      std::size_t consumed = 0;
      const Bytes beyond = lms_signature_of(l, static_cast<std::uint32_t>(l.lms->leaves()), 9);
      EXPECT_EQ(parse_lms_signature_prefix(beyond, consumed).error(), Error::kMalformedSignature);
    }
  }
}

TEST(WireFormat, HssPublicKeyEverySetAndLevel) {
  std::uint8_t identifier[kIdentifierBytes], root[kMaxHashBytes];
  fill(identifier, sizeof identifier, 5);
  fill(root, sizeof root, 50);
  for (const LevelParams& l : compatible_pairs()) {
    SCOPED_TRACE(name_of(l));
    for (std::uint32_t levels = 1; levels <= kMaxLevels; ++levels) {
      const Bytes pub = encode_hss_public_key(levels, l, identifier, root);
      ASSERT_EQ(pub.size(), hss_public_key_bytes(l));
      auto key = parse_hss_public_key(pub);
      ASSERT_TRUE(key);
      EXPECT_EQ(key->levels, levels);
      EXPECT_EQ(key->top.params.lms, l.lms);
      EXPECT_EQ(key->top.params.ots, l.ots);
      EXPECT_TRUE(same(key->top.identifier, identifier, kIdentifierBytes));
      EXPECT_TRUE(same(key->top.root, root, l.lms->m));
      for (std::size_t len = 0; len < pub.size(); ++len) EXPECT_FALSE(parse_hss_public_key(ByteView(pub.data(), len))) << len;
      Bytes extended = pub;
      extended.push_back(0);
      EXPECT_EQ(parse_hss_public_key(extended).error(), Error::kMalformedPublicKey);
    }
    EXPECT_EQ(parse_hss_public_key(encode_hss_public_key(0, l, identifier, root)).error(), Error::kBadLevels);
    EXPECT_EQ(parse_hss_public_key(encode_hss_public_key(kMaxLevels + 1, l, identifier, root)).error(),
              Error::kBadLevels);
  }
}

// L = 1 and L = 2 (a top level of each set over a bottom level of the same set): written, parsed
// back, and refused one byte short or long.
TEST(WireFormat, HssSignatureEverySet) {
  std::uint8_t identifier[kIdentifierBytes], root[kMaxHashBytes];
  fill(identifier, sizeof identifier, 1);
  fill(root, sizeof root, 2);
  for (const LevelParams& l : compatible_pairs()) {
    SCOPED_TRACE(name_of(l));
    for (std::uint32_t levels = 1; levels <= 2; ++levels) {
      const Bytes pub = encode_hss_public_key(levels, l, identifier, root);
      const std::vector<LevelParams> layout(levels, l);
      const Bytes top_sig = lms_signature_of(l, 1, 20);
      const Bytes child = lms_public_key_of(l, 30);
      const Bytes bottom_sig = lms_signature_of(l, 0, 40);
      Bytes sig(hss_signature_bytes(layout));
      std::vector<SignedPublicKey> signed_keys;
      if (levels == 2) signed_keys.push_back({top_sig, child});
      auto slot = write_hss_signature_head(signed_keys, sig);
      ASSERT_TRUE(slot);
      const Bytes& last = levels == 2 ? bottom_sig : top_sig;
      ASSERT_EQ(slot->size(), last.size());
      std::memcpy(slot->data(), last.data(), last.size());

      HssSignatureParts parts;
      ASSERT_EQ(parse_hss_signature(pub, sig, parts), Error::kOk);
      ASSERT_EQ(parts.levels, levels);
      EXPECT_EQ(parts.sigs[0].q, 1u);
      EXPECT_TRUE(same(parts.sigs[0].randomizer, top_sig.data() + 8, l.ots->n));
      if (levels == 2) {
        EXPECT_EQ(parts.keys[1].encoded.size(), child.size());
        EXPECT_TRUE(same(parts.keys[1].encoded, child.data(), child.size()));
        EXPECT_EQ(parts.sigs[1].q, 0u);
        EXPECT_TRUE(same(parts.sigs[1].path, bottom_sig.data() + bottom_sig.size() - parts.sigs[1].path.size(),
                         std::size_t{l.lms->h} * l.lms->m));
      }
      for (std::size_t len = 0; len < sig.size(); ++len) {
        HssSignatureParts cut;
        if (parse_hss_signature(pub, ByteView(sig.data(), len), cut) == Error::kOk) ADD_FAILURE() << "parsed at " << len;
      }
      Bytes extended = sig;
      extended.push_back(0);
      HssSignatureParts longer;
      EXPECT_EQ(parse_hss_signature(pub, extended, longer), Error::kMalformedSignature);
      // Too small a buffer for the head is refused, not overrun.
      std::vector<std::uint8_t> small(3);
      EXPECT_FALSE(write_hss_signature_head(signed_keys, small));
      if (levels == 2) {
        std::vector<std::uint8_t> short_of_key(4 + top_sig.size() + child.size() - 1);
        EXPECT_FALSE(write_hss_signature_head(signed_keys, short_of_key));
      }
    }
  }
}

}  // namespace
}  // namespace klms::lms
