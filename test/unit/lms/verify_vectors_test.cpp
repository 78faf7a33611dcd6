// Verification against every expected result in the shared vectors: RFC 8554 Appendix F, RFC 9858,
// Botan's valid and invalid HSS/LMS signatures, and the NIST ACVP sigVer/sigGen samples.
#include <gtest/gtest.h>

#include <map>

#include "lms/verify.h"
#include "lms/wire_format.h"
#include "test/support/json.h"
#include "test/support/test_data.h"

namespace klms::lms {
namespace {

using test::Bytes;
using test::from_hex;

// key = value sections as in rfc8554_appendixF.txt and rfc9858_appendixA.txt.
std::vector<std::map<std::string, std::string>> read_sections(std::string_view file) {
  std::vector<std::map<std::string, std::string>> sections;
  for (const std::string& raw : test::read_lines(file)) {
    const std::string_view line = test::trim(raw);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {
      sections.emplace_back();
      sections.back()["name"] = std::string(line);
      continue;
    }
    std::string k, v;
    if (!sections.empty() && test::split_key_value(line, k, v)) sections.back()[k] = v;
  }
  return sections;
}

// Botan .vec files: "Key = value" lines; a record ends at the signature line.
struct VecRecord {
  Bytes public_key, message, signature;
  bool valid = true;
};
std::vector<VecRecord> read_vec(std::string_view file) {
  std::vector<VecRecord> out;
  VecRecord current;
  for (const std::string& raw : test::read_lines(file)) {
    std::string k, v;
    const std::string_view line = test::trim(raw);
    if (line.empty() || line.front() == '#' || !test::split_key_value(line, k, v)) continue;
    if (k == "PublicKey") current.public_key = from_hex(v);
    if (k == "Msg") current.message = from_hex(v);
    if (k == "Signature" || k == "InvalidSignature") {
      current.signature = from_hex(v);
      current.valid = k == "Signature";
      out.push_back(current);
    }
  }
  return out;
}

Bytes flip(Bytes b, std::size_t bit) {
  b[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
  return b;
}

TEST(VerifyVectors, Rfc8554AppendixF) {
  const auto sections = read_sections("lms/rfc8554_appendixF.txt");
  ASSERT_EQ(sections.size(), 2u);
  for (const auto& s : sections) {
    SCOPED_TRACE(s.at("name"));
    const Bytes pub = from_hex(s.at("public_key"));
    const Bytes msg = from_hex(s.at("message"));
    const Bytes sig = from_hex(s.at("signature"));
    ASSERT_EQ(pub.size(), std::stoul(s.at("public_key_len")));
    ASSERT_EQ(sig.size(), std::stoul(s.at("signature_len")));
    EXPECT_EQ(hss_verify(pub, msg, sig), Error::kOk);
    EXPECT_EQ(hss_verify(pub, flip(msg, 5), sig), Error::kVerifyFailed);
    EXPECT_NE(hss_verify(pub, msg, flip(sig, 8 * (sig.size() - 1))), Error::kOk);
    EXPECT_NE(hss_verify(flip(pub, 8 * 30), msg, sig), Error::kOk);
  }
}

TEST(VerifyVectors, Rfc9858AppendixA) {
  const auto sections = read_sections("lms/rfc9858/rfc9858_appendixA.txt");
  ASSERT_EQ(sections.size(), 4u);
  for (const auto& s : sections) {
    SCOPED_TRACE(s.at("name"));
    const Bytes pub = from_hex(s.at("public_key"));
    const Bytes msg = from_hex(s.at("message"));
    const Bytes sig = from_hex(s.at("signature"));
    EXPECT_EQ(hss_verify(pub, msg, sig), Error::kOk);
    EXPECT_EQ(hss_verify(pub, flip(msg, 0), sig), Error::kVerifyFailed);
    // The signature's q is the section's q.
    ASSERT_EQ(get_u32(sig.data()), 0u);  // L = 1: no signed lower keys
    EXPECT_EQ(get_u32(sig.data() + 4), std::stoul(s.at("q")));
  }
}

TEST(VerifyVectors, BotanValid) {
  const auto records = read_vec("lms/botan/hss_lms_verify.vec");
  ASSERT_EQ(records.size(), 5u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(hss_verify(records[i].public_key, records[i].message, records[i].signature), Error::kOk);
  }
}

TEST(VerifyVectors, BotanInvalidAreRejected) {
  const auto records = read_vec("lms/botan/hss_lms_invalid.vec");
  ASSERT_EQ(records.size(), 4u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_FALSE(records[i].valid);
    EXPECT_NE(hss_verify(records[i].public_key, records[i].message, records[i].signature), Error::kOk);
  }
}

// ACVP LMS vectors are single-level: raw LMS public keys and signatures.
Error verify_lms(const Bytes& pub, const Bytes& msg, const Bytes& sig) {
  auto key = parse_lms_public_key(pub);
  if (!key) return key.error();
  return lms_verify(*key, msg, sig);
}

void check_acvp_sigver(std::string_view file, std::size_t expected_cases) {
  const auto json = test::Json::parse(test::read_text(file));
  std::size_t cases = 0, valid = 0;
  for (const auto& group : json["testGroups"].items()) {
    const Bytes pub = from_hex(group["publicKey"].text());
    for (const auto& t : group["tests"].items()) {
      SCOPED_TRACE(t["tcId"].text() + " " + t["reason"].text());
      const bool expected = t["testPassed"].text() == "true";
      const Error e = verify_lms(pub, from_hex(t["message"].text()), from_hex(t["signature"].text()));
      EXPECT_EQ(e == Error::kOk, expected) << describe(e);
      ++cases;
      valid += expected ? 1 : 0;
    }
  }
  EXPECT_EQ(cases, expected_cases);
  EXPECT_GT(valid, 0u);
  EXPECT_LT(valid, cases);  // the samples hold both outcomes
}

TEST(VerifyVectors, AcvpSigVer10) { check_acvp_sigver("lms/acvp/LMS-sigVer-1.0/internalProjection.json", 8); }
TEST(VerifyVectors, AcvpSigVerSp800208) {
  check_acvp_sigver("lms/acvp/LMS-sigVer-SP800-208/internalProjection.json", 8);
}

void check_acvp_siggen(std::string_view file) {
  const auto json = test::Json::parse(test::read_text(file));
  std::size_t cases = 0;
  for (const auto& group : json["testGroups"].items()) {
    const Bytes pub = from_hex(group["publicKey"].text());
    for (const auto& t : group["tests"].items()) {
      SCOPED_TRACE(t["tcId"].text());
      const Bytes msg = from_hex(t["message"].text());
      const Bytes sig = from_hex(t["signature"].text());
      EXPECT_EQ(verify_lms(pub, msg, sig), Error::kOk);
      EXPECT_EQ(verify_lms(pub, flip(msg, 3), sig), Error::kVerifyFailed);
      ++cases;
    }
  }
  EXPECT_GT(cases, 0u);
}

TEST(VerifyVectors, AcvpSigGenSignaturesVerify) {
  check_acvp_siggen("lms/acvp/LMS-sigGen-1.0/internalProjection.json");
  check_acvp_siggen("lms/acvp/LMS-sigGen-SP800-208/internalProjection.json");
}

}  // namespace
}  // namespace klms::lms
