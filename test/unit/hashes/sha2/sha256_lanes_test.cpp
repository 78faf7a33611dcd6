// The multi-buffer SHA-256 lanes (AVX-512 16 lanes, AVX2 8 lanes) with every tail policy, against
// OpenSSL's SHA256: counts 1..40 and 67 (full groups, every remainder), the one-block LMS lengths and
// multi-block ones, every input in its own exact-size heap buffer (ASan sees any over-read) and
// every output too, then in place at offsets 0 and 7 (the chain step's layout).
#include <memory>

#include "hashes/cpu_features.h"
#include "hashes/sha2/sha256_lanes.h"
#include "test/unit/hashes/sha2/sha256_test_helpers.h"

namespace klms::test::sha {
namespace {

using hashes::sha256::lanes::Tail;
using LanesFunction = void (*)(Tail, const hashes::PrefixState&, const std::uint8_t* const*, std::size_t,
                               std::uint8_t* const*, std::size_t) noexcept;

struct LanesCase {
  const char* name;
  LanesFunction many;
  bool avx512;  // else AVX2
  Tail tail;
};

const LanesCase kCases[] = {
    {"avx512_pad", hashes::sha256::lanes::hash_many_avx512_with, true, Tail::kPadLanes},
    {"avx512_shani_tail", hashes::sha256::lanes::hash_many_avx512_with, true, Tail::kShaNi},
    {"avx512_auto", hashes::sha256::lanes::hash_many_avx512_with, true, Tail::kAuto},
    {"avx2_pad", hashes::sha256::lanes::hash_many_avx2_with, false, Tail::kPadLanes},
    {"avx2_shani_tail", hashes::sha256::lanes::hash_many_avx2_with, false, Tail::kShaNi},
    {"avx2_auto", hashes::sha256::lanes::hash_many_avx2_with, false, Tail::kAuto},
};

// The brief's lengths plus 30 (the n = 24 leaf, specialised too) and 40 (the first rest that spills
// its padding into a second block).
const std::size_t kRestLengths[] = {0, 22, 30, 31, 38, 39, 40, 47, 48, 70, 200, 2150};

std::vector<std::size_t> counts() {
  std::vector<std::size_t> c;
  for (std::size_t i = 1; i <= 40; ++i) c.push_back(i);
  c.push_back(67);
  return c;
}

enum class Outputs { kSeparate, kInPlace, kInPlaceAt7 };

class Sha256Lanes : public ::testing::TestWithParam<LanesCase> {
 protected:
  void SetUp() override {
    const hashes::CpuFeatures& f = hashes::cpu_features();
    if (GetParam().avx512 && !(f.avx512f && f.avx512vl)) GTEST_SKIP() << "no AVX-512 F+VL on this CPU";
    if (!GetParam().avx512 && !f.avx2) GTEST_SKIP() << "no AVX2 on this CPU";
    if (GetParam().tail != Tail::kPadLanes && !f.sha_ni) GTEST_SKIP() << "no SHA-NI on this CPU";
  }

  void check(std::uint64_t seed, Outputs where) const {
    std::mt19937_64 rng(seed);
    const std::size_t offset = where == Outputs::kInPlaceAt7 ? 7 : 0;
    for (std::size_t len : kRestLengths) {
      for (std::size_t count : counts()) {
        const Bytes identifier = random_bytes(rng, 16);
        hashes::PrefixState prefix;
        sha256_backend(Sha256Kind::kPortable).init_prefix(prefix, identifier.data());
        const std::size_t capacity = where == Outputs::kSeparate ? std::max<std::size_t>(len, 1)
                                                                 : std::max<std::size_t>(len, offset + 32);
        std::vector<std::unique_ptr<std::uint8_t[]>> inputs, separate;
        std::vector<const std::uint8_t*> rests;
        std::vector<std::uint8_t*> outs;
        std::vector<Digest> expected;
        for (std::size_t k = 0; k < count; ++k) {
          const Bytes rest = random_bytes(rng, len);
          inputs.emplace_back(new std::uint8_t[capacity]);
          std::copy(rest.begin(), rest.end(), inputs.back().get());
          rests.push_back(inputs.back().get());
          expected.push_back(openssl_sha256(concat(identifier, rest)));
          if (where == Outputs::kSeparate) {
            separate.emplace_back(new std::uint8_t[32]);
            outs.push_back(separate.back().get());
          } else {
            outs.push_back(inputs.back().get() + offset);
          }
        }
        GetParam().many(GetParam().tail, prefix, rests.data(), len, outs.data(), count);
        for (std::size_t k = 0; k < count; ++k) {
          ASSERT_EQ(Digest(outs[k], outs[k] + 32), expected[k])
              << GetParam().name << ": rest length " << len << ", count " << count << ", message " << k
              << ", output offset " << offset << (where == Outputs::kSeparate ? " (separate)" : " (in place)");
        }
      }
    }
  }
};

TEST_P(Sha256Lanes, AgreesWithOpenSsl) { check(30, Outputs::kSeparate); }

TEST_P(Sha256Lanes, OutputsMayAliasInputs) { check(31, Outputs::kInPlace); }

TEST_P(Sha256Lanes, OutputsMayOverlapInputsAsInAChain) { check(32, Outputs::kInPlaceAt7); }

TEST_P(Sha256Lanes, ZeroCountTouchesNothing) {
  hashes::PrefixState prefix;
  const std::uint8_t identifier[16] = {};
  sha256_backend(Sha256Kind::kPortable).init_prefix(prefix, identifier);
  GetParam().many(GetParam().tail, prefix, nullptr, 39, nullptr, 0);
}

// A long chain as LM-OTS runs it: every step rewrites j and hashes I || q || i || j || tmp in place.
TEST_P(Sha256Lanes, ChainsMatchThePortableBackend) {
  constexpr std::size_t kChains = 67, kStride = 64;
  std::mt19937_64 rng(33);
  const Bytes identifier = random_bytes(rng, 16);
  hashes::PrefixState prefix;
  const Backend& portable = sha256_backend(Sha256Kind::kPortable);
  portable.init_prefix(prefix, identifier.data());
  for (std::size_t n : {std::size_t{32}, std::size_t{24}}) {
    Bytes lanes = random_bytes(rng, kChains * kStride), reference = lanes;
    std::vector<const std::uint8_t*> rests(kChains);
    std::vector<std::uint8_t*> outs(kChains);
    for (unsigned step = 0; step < 15; ++step) {
      for (std::size_t c = 0; c < kChains; ++c) {
        lanes[c * kStride + 6] = reference[c * kStride + 6] = static_cast<std::uint8_t>(step);
        portable.hash_one(prefix, &reference[c * kStride], 7 + n, &reference[c * kStride + 7]);
        rests[c] = &lanes[c * kStride];
        outs[c] = &lanes[c * kStride + 7];
      }
      GetParam().many(GetParam().tail, prefix, rests.data(), 7 + n, outs.data(), kChains);
    }
    ASSERT_EQ(lanes, reference) << GetParam().name << ", n = " << n;
  }
}

std::string case_name(const ::testing::TestParamInfo<LanesCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Implementations, Sha256Lanes, ::testing::ValuesIn(kCases), case_name);

// The backend's own hash_many, whichever implementation sha256_hw.cpp chose on this CPU.
TEST(Sha256HwBackend, HashManyAgreesWithHashOne) {
  if (!hashes::sha256_hw_supported()) GTEST_SKIP() << "no SHA-NI on this CPU";
  const Backend& hw = sha256_backend(Sha256Kind::kHw);
  std::mt19937_64 rng(34);
  for (std::size_t len : {std::size_t{39}, std::size_t{38}, std::size_t{70}}) {
    for (std::size_t count : {std::size_t{15}, std::size_t{16}, std::size_t{17}, std::size_t{536}}) {
      const Bytes identifier = random_bytes(rng, 16);
      hashes::PrefixState prefix;
      hw.init_prefix(prefix, identifier.data());
      std::vector<Bytes> rests_data;
      std::vector<Digest> out(count, Digest(32));
      std::vector<const std::uint8_t*> rests;
      std::vector<std::uint8_t*> outs;
      for (std::size_t k = 0; k < count; ++k) rests_data.push_back(random_bytes(rng, len));
      for (std::size_t k = 0; k < count; ++k) {
        rests.push_back(rests_data[k].data());
        outs.push_back(out[k].data());
      }
      hw.hash_many(prefix, rests.data(), len, outs.data(), count);
      for (std::size_t k = 0; k < count; ++k) ASSERT_EQ(out[k], hash_one_of(hw, prefix, rests_data[k])) << len << " " << k;
    }
  }
}

}  // namespace
}  // namespace klms::test::sha
