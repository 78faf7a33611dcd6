// hash_many against hash_one: every implementation (portable, AVX2 and AVX-512 lanes; the backend's
// choice is test/unit/hashes/backend_conformance_test.cpp's),
// many counts and rest lengths, and outputs written over their own inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hashes/cpu_features.h"
#include "hashes/families.h"
#include "hashes/tdm/tdm_lanes.h"
#include "test/support/test_data.h"

namespace klms::hashes {
namespace {

using test::Bytes;

constexpr std::size_t kCounts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 67};
constexpr std::size_t kRestLengths[] = {0, 22, 31, 38, 39, 70, 2150};

struct Implementation {
  std::string name;
  Backend backend;  // supplies init_prefix and the reference hash_one
  tdm::HashManySignature* hash_many;
};

// Checks outs[k] == hash_one(I || rests[k]) for random I and rests, with separate output buffers
// and with outs[k] == rests[k] (buffers at least 32 bytes long).
void check_against_hash_one(const Implementation& impl) {
  std::mt19937 rng(12345);
  for (std::size_t rest_len : kRestLengths) {
    for (std::size_t count : kCounts) {
      std::uint8_t identifier[16];
      for (auto& b : identifier) b = static_cast<std::uint8_t>(rng());
      PrefixState prefix;
      impl.backend.init_prefix(prefix, identifier);

      const std::size_t buffer_len = std::max<std::size_t>(rest_len, 32);
      std::vector<Bytes> rests(count, Bytes(buffer_len));
      for (auto& r : rests)
        for (auto& b : r) b = static_cast<std::uint8_t>(rng());

      std::vector<Bytes> expected(count, Bytes(32));
      for (std::size_t k = 0; k < count; ++k)
        impl.backend.hash_one(prefix, rests[k].data(), rest_len, expected[k].data());

      std::vector<const std::uint8_t*> in(count);
      std::vector<std::uint8_t*> out(count);
      std::vector<Bytes> separate(count, Bytes(32));
      for (std::size_t k = 0; k < count; ++k) {
        in[k] = rests[k].data();
        out[k] = separate[k].data();
      }
      impl.hash_many(prefix, in.data(), rest_len, out.data(), count);
      for (std::size_t k = 0; k < count; ++k)
        ASSERT_EQ(test::to_hex(separate[k]), test::to_hex(expected[k]))
            << impl.name << " rest_len " << rest_len << " count " << count << " message " << k;

      // In place: each output overwrites its own input.
      for (std::size_t k = 0; k < count; ++k) out[k] = rests[k].data();
      impl.hash_many(prefix, in.data(), rest_len, out.data(), count);
      for (std::size_t k = 0; k < count; ++k)
        ASSERT_EQ(test::to_hex(rests[k].data(), 32), test::to_hex(expected[k]))
            << impl.name << " in place, rest_len " << rest_len << " count " << count << " message " << k;
    }
  }
}

TEST(TdmHashMany, ChamPortable) { check_against_hash_one({"cham portable", tdm_cham_backend(), tdm::cham_hash_many_portable}); }
TEST(TdmHashMany, LeaPortable) { check_against_hash_one({"lea portable", tdm_lea_backend(), tdm::lea_hash_many_portable}); }
TEST(TdmHashMany, AriaPortable) { check_against_hash_one({"aria portable", tdm_aria_backend(), tdm::aria_hash_many_portable}); }

TEST(TdmHashMany, ChamAvx2Lanes) {
  if (!cpu_features().avx2) GTEST_SKIP() << "CPU without AVX2";
  check_against_hash_one({"cham avx2", tdm_cham_backend(), tdm::cham_hash_many_avx2});
}

TEST(TdmHashMany, LeaAvx2Lanes) {
  if (!cpu_features().avx2) GTEST_SKIP() << "CPU without AVX2";
  check_against_hash_one({"lea avx2", tdm_lea_backend(), tdm::lea_hash_many_avx2});
}

bool has_avx512() { return cpu_features().avx512f && cpu_features().avx512vl; }

TEST(TdmHashMany, ChamAvx512Lanes) {
  if (!has_avx512()) GTEST_SKIP() << "CPU without AVX-512F/VL";
  check_against_hash_one({"cham avx512", tdm_cham_backend(), tdm::cham_hash_many_avx512});
  check_against_hash_one({"cham avx512vl 8 lanes", tdm_cham_backend(), tdm::cham_hash_many_avx512vl_8});
}

TEST(TdmHashMany, LeaAvx512Lanes) {
  if (!has_avx512()) GTEST_SKIP() << "CPU without AVX-512F/VL";
  check_against_hash_one({"lea avx512", tdm_lea_backend(), tdm::lea_hash_many_avx512});
  check_against_hash_one({"lea avx512vl 8 lanes", tdm_lea_backend(), tdm::lea_hash_many_avx512vl_8});
}

TEST(TdmHashMany, AriaGfniAvx2) {
  if (!cpu_features().avx2 || !tdm::gfni_supported()) GTEST_SKIP() << "CPU without AVX2 and GFNI";
  check_against_hash_one({"aria gfni avx2", tdm_aria_backend(), tdm::aria_hash_many_gfni_avx2});
}

}  // namespace
}  // namespace klms::hashes
