// Every ECB known answer in test/data/ciphers against the CHAM, LEA and ARIA byte interfaces.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "hashes/blockcipher/aria.h"
#include "hashes/blockcipher/cham.h"
#include "hashes/blockcipher/lea.h"
#include "test/support/test_data.h"

namespace klms::hashes {
namespace {

using test::Bytes;

struct Kat {
  std::string name;  // where it came from, for failure messages
  Bytes key, plaintext, ciphertext;
};

// First whitespace-separated token: some .rsp lines carry notes after the value ("[src]").
std::string first_token(const std::string& value) { return value.substr(0, value.find_first_of(" \t")); }

// KEY / PT|PLAINTEXT / CT|CIPHERTEXT records of an .rsp file.
std::vector<Kat> read_rsp(const std::string& file) {
  std::vector<Kat> kats;
  Kat current;
  std::string count;
  for (const auto& line : test::read_lines(file)) {
    std::string key, value;
    if (line.empty() || line[0] == '#' || line[0] == '[' || !test::split_key_value(line, key, value)) continue;
    value = first_token(value);
    if (key == "COUNT") count = value;
    if (key == "KEY") current.key = test::from_hex(value);
    if (key == "PT" || key == "PLAINTEXT") current.plaintext = test::from_hex(value);
    if (key == "CT" || key == "CIPHERTEXT") {
      current.ciphertext = test::from_hex(value);
      current.name = file + " COUNT " + count;
      kats.push_back(current);
    }
  }
  return kats;
}

// Crypto++ TestVectors format: "Field: value", values continued over lines ending in '\', one
// record per "Test:" line. Keeps only records whose Name contains name_part.
std::vector<Kat> read_cryptopp(const std::string& file, const std::string& name_part) {
  std::vector<Kat> kats;
  std::map<std::string, std::string> fields;
  const auto lines = test::read_lines(file);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    while (!line.empty() && line.back() == '\\' && i + 1 < lines.size()) {
      line.pop_back();
      line += " " + lines[++i];
    }
    std::string key, value;
    if (line.empty() || line[0] == '#' || !test::split_key_value(line, key, value, ':')) continue;
    if (key != "Test") {
      fields[key] = value;
      continue;
    }
    if (fields["Name"].find(name_part) == std::string::npos) continue;
    kats.push_back({file + " line " + std::to_string(i + 1) + " " + fields["Comment"], test::from_hex(fields["Key"]),
                    test::from_hex(fields["Plaintext"]), test::from_hex(fields["Ciphertext"])});
  }
  return kats;
}

// ECB over consecutive 16-byte blocks with an expanded key.
template <class Keys, class Encrypt>
Bytes ecb(const Keys& keys, Encrypt encrypt, const Bytes& plaintext) {
  Bytes out(plaintext.size());
  for (std::size_t at = 0; at + 16 <= plaintext.size(); at += 16) encrypt(keys, plaintext.data() + at, out.data() + at);
  return out;
}

Bytes cham_ecb(const Kat& kat) {
  if (kat.key.size() != cham::kKeyBytes) return {};
  cham::RoundKeys keys;
  cham::expand_key(kat.key.data(), keys);
  return ecb(keys, cham::encrypt, kat.plaintext);
}

Bytes lea_ecb(const Kat& kat) {
  lea::RoundKeys keys{};
  if (kat.key.size() == 16) lea::expand_key128(kat.key.data(), keys);
  if (kat.key.size() == 24) lea::expand_key192(kat.key.data(), keys);
  if (kat.key.size() == 32) lea::expand_key256(kat.key.data(), keys);
  return ecb(keys, lea::encrypt, kat.plaintext);
}

Bytes aria_ecb(const Kat& kat) {
  aria::RoundKeys keys{};
  if (kat.key.size() == 16) aria::expand_key128(kat.key.data(), keys);
  if (kat.key.size() == 24) aria::expand_key192(kat.key.data(), keys);
  if (kat.key.size() == 32) aria::expand_key256(kat.key.data(), keys);
  return ecb(keys, aria::encrypt, kat.plaintext);
}

template <class Cipher>
void expect_all(const std::vector<Kat>& kats, Cipher cipher) {
  for (const auto& kat : kats) {
    ASSERT_FALSE(kat.plaintext.empty()) << kat.name;
    ASSERT_TRUE(kat.key.size() == 16 || kat.key.size() == 24 || kat.key.size() == 32) << kat.name;
    ASSERT_EQ(kat.plaintext.size() % 16, 0u) << kat.name;
    ASSERT_EQ(kat.plaintext.size(), kat.ciphertext.size()) << kat.name;
    EXPECT_EQ(test::to_hex(cipher(kat)), test::to_hex(kat.ciphertext)) << kat.name;
  }
}

TEST(ChamVectors, RevisedCham128_256AllEntries) {
  const auto kats = read_rsp("ciphers/cham128_256_revised_r120.rsp");
  ASSERT_EQ(kats.size(), 129u);  // the paper vector and 128 VarTxt entries
  expect_all(kats, cham_ecb);
}

TEST(LeaVectors, KcmvpLea256Ecb) {
  const auto kats = read_rsp("ciphers/kcmvp_LEA256_ECB_KAT.rsp");
  ASSERT_EQ(kats.size(), 404u);
  expect_all(kats, lea_ecb);
}

TEST(LeaVectors, CryptoppEcbAllKeySizes) {
  const auto kats = read_cryptopp("ciphers/lea.txt", "/ECB");
  ASSERT_EQ(kats.size(), 30u);
  std::map<std::size_t, int> per_key_size;
  for (const auto& kat : kats) ++per_key_size[kat.key.size()];
  EXPECT_EQ(per_key_size[16], 10);
  EXPECT_EQ(per_key_size[24], 10);
  EXPECT_EQ(per_key_size[32], 10);
  expect_all(kats, lea_ecb);
}

TEST(AriaVectors, KcmvpAria256Ecb) {
  const auto kats = read_rsp("ciphers/kcmvp_ARIA256_ECB_KAT.rsp");
  ASSERT_EQ(kats.size(), 400u);
  expect_all(kats, aria_ecb);
}

TEST(AriaVectors, CryptoppEcbIncludingRfc5794) {
  const auto kats = read_cryptopp("ciphers/aria.txt", "ARIA/ECB");
  ASSERT_EQ(kats.size(), 6u);  // three multi-block vectors and RFC 5794 A.1-A.3
  EXPECT_EQ(kats[0].plaintext.size(), 160u);
  expect_all(kats, aria_ecb);
}

}  // namespace
}  // namespace klms::hashes
