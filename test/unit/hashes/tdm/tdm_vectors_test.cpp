// Tandem-DM known answers (test/data/tdm) through the digest contexts (bytewise, split and copied),
// the named messages, the IV and one compression, for TDM-CHAM, TDM-LEA and TDM-ARIA. The backends'
// entry points on tdm_lengths.txt: test/unit/hashes/backend_conformance_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "hashes/families.h"
#include "hashes/tdm/tdm_ciphers.h"
#include "test/support/test_data.h"

namespace klms::hashes {
namespace {

using test::Bytes;
using test::from_hex;
using test::to_hex;

struct Hash {
  std::string file_name;  // as tdm_lengths.txt names it
  Backend backend;
  const DigestAlgorithm* digest;
};

std::vector<Hash> all_hashes() {
  return {{"TDM-CHAM", tdm_cham_backend(), &tdm_cham_digest()},
          {"TDM-LEA", tdm_lea_backend(), &tdm_lea_digest()},
          {"TDM-ARIA", tdm_aria_backend(), &tdm_aria_digest()}};
}

Bytes counting_message(std::size_t len) {
  Bytes m(len);
  for (std::size_t i = 0; i < len; ++i) m[i] = static_cast<std::uint8_t>(i);
  return m;
}

std::string one_shot(const Backend& b, const Bytes& m) {
  std::uint8_t out[32];
  b.digest(m.data(), m.size(), out);
  return to_hex(out, 32);
}

// H(m) through init_prefix(first 16 bytes) + hash_one.
std::string via_prefix_hash_one(const Backend& b, const Bytes& m) {
  PrefixState prefix;
  b.init_prefix(prefix, m.data());
  std::uint8_t out[32];
  b.hash_one(prefix, m.data() + 16, m.size() - 16, out);
  return to_hex(out, 32);
}

struct alignas(64) Context {
  std::uint8_t bytes[kMaxDigestContextBytes];
};

std::string via_context_split(const DigestAlgorithm& d, const Bytes& m, std::size_t split) {
  Context ctx;
  d.init(ctx.bytes);
  d.update(ctx.bytes, m.data(), split);
  // Continue in a copy: contexts must survive memcpy (the provider's dupctx).
  Context copy;
  std::memcpy(copy.bytes, ctx.bytes, d.context_size);
  std::memset(ctx.bytes, 0xa5, sizeof ctx.bytes);
  d.update(copy.bytes, m.data() + split, m.size() - split);
  std::uint8_t out[32];
  d.final(copy.bytes, out);
  return to_hex(out, 32);
}

std::string via_context_bytewise(const DigestAlgorithm& d, const Bytes& m) {
  Context ctx;
  d.init(ctx.bytes);
  d.update(ctx.bytes, nullptr, 0);
  for (std::uint8_t byte : m) d.update(ctx.bytes, &byte, 1);
  std::uint8_t out[32];
  d.final(ctx.bytes, out);
  return to_hex(out, 32);
}

// "TDM-CHAM 17 <hex>" lines, by hash name and length.
std::map<std::string, std::map<std::size_t, std::string>> read_lengths() {
  std::map<std::string, std::map<std::size_t, std::string>> answers;
  for (const auto& line : test::read_lines("tdm/tdm_lengths.txt")) {
    if (line.empty() || line[0] == '#') continue;
    const auto a = line.find(' '), b = line.find(' ', a + 1);
    answers[line.substr(0, a)][std::stoul(line.substr(a + 1, b - a - 1))] = line.substr(b + 1);
  }
  return answers;
}

TEST(TdmLengths, FileHasEveryLengthForEveryHash) {
  const auto answers = read_lengths();
  ASSERT_EQ(answers.size(), 3u);
  for (const auto& [name, by_length] : answers) {
    EXPECT_EQ(by_length.size(), 132u) << name;
    EXPECT_TRUE(by_length.count(1000)) << name;
  }
}

TEST(TdmLengths, DigestContextByteAtATime) {
  const auto answers = read_lengths();
  for (const auto& h : all_hashes()) {
    ASSERT_TRUE(answers.count(h.file_name));
    for (const auto& [len, expected] : answers.at(h.file_name)) {
      const Bytes m = counting_message(len);
      EXPECT_EQ(via_context_bytewise(*h.digest, m), expected) << h.file_name << " len " << len;
    }
  }
}

TEST(TdmLengths, ContextAtEverySplitPoint) {
  const auto answers = read_lengths();
  for (const auto& h : all_hashes()) {
    for (const auto& [len, expected] : answers.at(h.file_name)) {
      const Bytes m = counting_message(len);
      for (std::size_t split = 0; split <= len; ++split)
        ASSERT_EQ(via_context_split(*h.digest, m, split), expected) << h.file_name << " len " << len << " split " << split;
    }
  }
}

// tdm_vectors.txt: per hash, its IV, named messages and one compression step.
struct NamedVectors {
  std::string iv;
  std::map<std::string, std::string> digests;  // H("") etc. by message name
  std::string compress_g, compress_h;
};

std::map<std::string, NamedVectors> read_named() {
  std::map<std::string, NamedVectors> vectors;
  std::string current;
  for (const auto& raw : test::read_lines("tdm/tdm_vectors.txt")) {
    const std::string line(test::trim(raw));
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("TDM-", 0) == 0) {
      current = line.substr(0, line.find('-', 4));  // "TDM-CHAM-128/256" -> "TDM-CHAM"
      vectors[current].iv = line.substr(line.find("IV = ") + 5);
    } else if (line.rfind("H(", 0) == 0) {
      const auto close = line.find(')');
      vectors[current].digests[line.substr(2, close - 2)] = std::string(test::trim(line.substr(line.find('=') + 1)));
    } else if (line.rfind("compress(", 0) == 0) {
      const auto g = line.find("G'="), h = line.find("H'=");
      vectors[current].compress_g = line.substr(g + 3, 32);
      vectors[current].compress_h = line.substr(h + 3, 32);
    }
  }
  return vectors;
}

Bytes named_message(const std::string& name) {
  if (name == "\"\"") return {};
  if (name == "\"abc\"") return {'a', 'b', 'c'};
  if (name == "00*55") return Bytes(55, 0);
  if (name == "00..3f") return counting_message(64);
  ADD_FAILURE() << "unknown message " << name;
  return {};
}

TEST(TdmVectors, NamedMessages) {
  const auto vectors = read_named();
  ASSERT_EQ(vectors.size(), 3u);
  for (const auto& h : all_hashes()) {
    ASSERT_TRUE(vectors.count(h.file_name)) << h.file_name;
    const auto& v = vectors.at(h.file_name);
    ASSERT_EQ(v.digests.size(), 4u) << h.file_name;
    for (const auto& [name, expected] : v.digests) {
      const Bytes m = named_message(name);
      EXPECT_EQ(one_shot(h.backend, m), expected) << h.file_name << " " << name;
      EXPECT_EQ(via_context_bytewise(*h.digest, m), expected) << h.file_name << " " << name;
      if (m.size() >= 16) {
        EXPECT_EQ(via_prefix_hash_one(h.backend, m), expected) << h.file_name << " " << name;
      }
    }
  }
}

// The IV and the state after one block (what init_prefix saves for I = 00..0f).
template <class Cipher>
void expect_iv_and_compression(const NamedVectors& v) {
  std::uint8_t out[32];
  tdm::output<Cipher>(Cipher::kIv, out);
  EXPECT_EQ(to_hex(out, 32), v.iv);
  const Bytes block = counting_message(16);
  tdm::output<Cipher>(tdm::absorb_identifier<Cipher>(block.data()), out);
  EXPECT_EQ(to_hex(out, 16), v.compress_g);
  EXPECT_EQ(to_hex(out + 16, 16), v.compress_h);
}

TEST(TdmVectors, IvAndSingleCompression) {
  const auto vectors = read_named();
  ASSERT_EQ(vectors.size(), 3u);
  expect_iv_and_compression<tdm::ChamCipher>(vectors.at("TDM-CHAM"));
  expect_iv_and_compression<tdm::LeaCipher>(vectors.at("TDM-LEA"));
  expect_iv_and_compression<tdm::AriaCipher>(vectors.at("TDM-ARIA"));
}

TEST(TdmBackends, NamesAndIds) {
  const auto hashes = all_hashes();
  EXPECT_EQ(hashes[0].backend.name, "tdm-cham");
  EXPECT_EQ(hashes[1].backend.name, "tdm-lea");
  EXPECT_EQ(hashes[2].backend.name, "tdm-aria");
  EXPECT_EQ(hashes[0].backend.id, BackendId::kTdmCham);
  EXPECT_EQ(hashes[1].backend.id, BackendId::kTdmLea);
  EXPECT_EQ(hashes[2].backend.id, BackendId::kTdmAria);
  EXPECT_EQ(hashes[0].backend.family, HashFamily::kTdmCham);
  EXPECT_EQ(hashes[1].backend.family, HashFamily::kTdmLea);
  EXPECT_EQ(hashes[2].backend.family, HashFamily::kTdmAria);
  EXPECT_EQ(hashes[0].digest->name, "TDM-CHAM");
  EXPECT_EQ(hashes[1].digest->name, "TDM-LEA");
  EXPECT_EQ(hashes[2].digest->name, "TDM-ARIA");
  for (const auto& h : hashes) {
    EXPECT_EQ(h.digest->block_size, 16u);
    EXPECT_EQ(h.digest->output_size, 32u);
    EXPECT_LE(h.digest->context_size, kMaxDigestContextBytes);
    EXPECT_GE(h.backend.lanes, 1u);
    EXPECT_FALSE(h.backend.implementation.empty());
  }
}

}  // namespace
}  // namespace klms::hashes
