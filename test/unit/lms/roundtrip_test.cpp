// Sign -> verify for every parameter set at h = 5 (and h = 10 with W4), every backend, L = 1, 2, 3;
// a flipped bit anywhere in the signature, the public key or the message is rejected.
#include <gtest/gtest.h>

#include <random>

#include "hashes/backend.h"
#include "lms/verify.h"
#include "test/unit/lms/lms_test_util.h"

namespace klms::lms {
namespace {

using test::Bytes;

struct Case {
  std::string backend;
  unsigned n, w, h, levels;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.backend + "_N" + std::to_string(info.param.n) + "_W" + std::to_string(info.param.w) +
                     "_H" + std::to_string(info.param.h) + "_L" + std::to_string(info.param.levels);
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const char* b : {"sha256-portable", "sha256-hw", "lsh256-ref", "lsh256-simd", "tdm-cham", "tdm-lea",
                        "tdm-aria", "shake256"}) {
    for (unsigned n : {32u, 24u}) {
      for (unsigned w : {1u, 2u, 4u, 8u}) cases.push_back({b, n, w, 5, 1});
    }
    cases.push_back({b, 32, 4, 10, 1});
    cases.push_back({b, 32, 2, 5, 2});
    cases.push_back({b, 24, 4, 5, 3});
  }
  return cases;
}

Bytes flip_bit(Bytes b, std::size_t bit) {
  b[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
  return b;
}

class RoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(RoundTrip, SignVerifyAndRejectFlips) {
  const Case& c = GetParam();
  const hashes::Backend* backend = hashes::find_backend(c.backend);
  if (backend == nullptr) GTEST_SKIP() << c.backend << " not available on this CPU";
  std::vector<LevelParams> levels;
  for (unsigned i = 0; i < c.levels; ++i) {
    // Lower levels use other (h, w) too, to exercise mixed levels.
    const unsigned w = i == 0 ? c.w : (c.w == 8 ? 4 : 8);
    levels.push_back({lms_for(backend->family, c.n, c.h), ots_for(backend->family, c.n, w)});
    ASSERT_NE(levels.back().lms, nullptr);
    ASSERT_NE(levels.back().ots, nullptr);
  }
  std::mt19937_64 rng(c.n * 1000 + c.w * 100 + c.h * 10 + c.levels);
  Bytes seed(c.n), id(16), message(1 + rng() % 300);
  for (auto* v : {&seed, &id, &message}) {
    for (auto& byte : *v) byte = static_cast<std::uint8_t>(rng());
  }
  test::TempDir dir;
  auto key = test::generate_seeded(dir, levels, seed, id, backend);
  const hashes::Backend* verify_backend = backend;  // and the provider's default below

  // Indices spread over the key, crossing lower-tree boundaries when L > 1.
  const std::uint64_t max = max_signatures(levels);
  std::vector<std::uint64_t> indices = {0, 1};
  if (c.levels > 1) indices.push_back(std::uint64_t{1} << levels.back().lms->h);
  indices.push_back(max - 1);
  for (std::uint64_t q : indices) {
    SCOPED_TRACE("q=" + std::to_string(q));
    const Bytes sig = test::sign_at(*key.signer, key.private_key.state_file, q, message);
    ASSERT_EQ(sig.size(), hss_signature_bytes(levels));
    EXPECT_EQ(hss_verify(key.public_key, message, sig, verify_backend), Error::kOk);
    EXPECT_EQ(hss_verify(key.public_key, message, sig), Error::kOk);
    if (q != 0) continue;
    // Every bit of the first 12 bytes (Nspk, q, the LM-OTS type), then about 120 bits spread over
    // the whole signature so that every field is hit; an exhaustive sweep is the fuzzers' job.
    const std::size_t bits = sig.size() * 8;
    const std::size_t step = bits / 120 + 1;
    for (std::size_t bit = 0; bit < bits; bit += bit < 96 ? 1 : step) {
      ASSERT_NE(hss_verify(key.public_key, message, flip_bit(sig, bit), verify_backend), Error::kOk) << "bit " << bit;
    }
    for (std::size_t bit = 0; bit < key.public_key.size() * 8; bit += 5) {
      ASSERT_NE(hss_verify(flip_bit(key.public_key, bit), message, sig, verify_backend), Error::kOk) << "bit " << bit;
    }
    for (std::size_t bit = 0; bit < message.size() * 8; bit += message.size() * 8 / 8 + 1) {
      ASSERT_EQ(hss_verify(key.public_key, flip_bit(message, bit), sig, verify_backend), Error::kVerifyFailed);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllSets, RoundTrip, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace klms::lms
