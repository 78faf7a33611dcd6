// The measured path table (hashes/cpu_paths.cpp): which row a CPU falls in, that the chosen path is
// always one the CPU runs, and that the backends are built on the chosen paths. The paths' outputs
// are checked against each other by the per-family tests (test/unit/hashes/lsh, sha2, keccak, tdm), which run
// every path this CPU has.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "hashes/backend.h"
#include "hashes/cpu_features.h"
#include "hashes/cpu_paths.h"
#include "hashes/lsh/lsh256.h"
#include "hashes/lsh/lsh512.h"

namespace klms::hashes {
namespace {

CpuFeatures zen4() {
  CpuFeatures c;
  c.sse2 = c.ssse3 = c.sse41 = c.avx2 = c.sha_ni = c.avx512f = c.avx512vl = c.gfni = true;
  c.vendor = CpuVendor::kAmd;
  c.family = 0x19;
  c.model = 0x11;
  return c;
}

TEST(CpuPaths, RowsByVendorFamilyAndFeatures) {
  CpuFeatures c = zen4();
  EXPECT_EQ(cpu_profile_name(c), "amd-zen4");
  c.avx512f = c.avx512vl = false;  // Zen 3: same family, no AVX-512
  EXPECT_EQ(cpu_profile_name(c), "generic");
  c = zen4();
  c.family = 0x1a;  // Zen 5: not measured
  EXPECT_EQ(cpu_profile_name(c), "generic");
  c = zen4();
  c.vendor = CpuVendor::kIntel;
  c.intel = true;
  c.family = 6;
  c.model = 0x8f;  // Sapphire Rapids
  EXPECT_EQ(cpu_profile_name(c), "intel-avx512");
}

// SHA-NI is not the choice on AMD just because it is there: on Zen 4 the AVX-512 lanes are 1.4x faster.
TEST(CpuPaths, Zen4HashesSha256InAvx512Lanes) {
  EXPECT_EQ(choose_path(PathSlot::kSha256Many, zen4()), HashPath::kAvx512);
  CpuFeatures no_avx512 = zen4();
  no_avx512.avx512f = no_avx512.avx512vl = false;
  EXPECT_EQ(choose_path(PathSlot::kSha256Many, no_avx512), HashPath::kShaNi);  // AVX2 x8 loses to SHA-NI
  CpuFeatures no_sha = zen4();
  no_sha.sha_ni = false;  // the lanes hand their tail to SHA-NI: without it, no lanes
  EXPECT_NE(choose_path(PathSlot::kSha256Many, no_sha), HashPath::kAvx512);
}

// LSH-256 below AVX-512: the message lanes (4 per call) beat the 8 word-sliced lanes in the same run
// (klms-path-bench on Zen 4), so an AVX2-only CPU, AMD or Intel, gets them; LSH-512 has no such
// path and stays on its AVX2 code. With AVX-512 the 16 lanes stay first.
TEST(CpuPaths, Avx2OnlyCpusHashLsh256OnMessageLanes) {
  CpuFeatures zen3 = zen4();
  zen3.avx512f = zen3.avx512vl = false;
  CpuFeatures intel_avx2 = zen3;
  intel_avx2.vendor = CpuVendor::kIntel;
  intel_avx2.intel = true;
  intel_avx2.family = 6;
  intel_avx2.model = 0x9e;  // Coffee Lake
  for (const CpuFeatures& c : {zen3, intel_avx2}) {
    EXPECT_EQ(choose_path(PathSlot::kLsh256, c), HashPath::kAvx2MessageLanes);
    EXPECT_EQ(choose_path(PathSlot::kLsh512, c), HashPath::kAvx2);
  }
  EXPECT_EQ(choose_path(PathSlot::kLsh256, zen4()), HashPath::kAvx512);
  EXPECT_EQ(lsh_isa_of(HashPath::kAvx2MessageLanes), LshIsa::kAvx2MessageLanes);
}

// KLMS_DISABLE_SIMD=avx512 (the *_avx2 ctest entries) makes this process an AVX2-only CPU of its
// kind: AVX-512 is hidden from every choice, and the backends are built on AVX2 paths.
TEST(CpuPaths, EnvironmentCanHideAvx512) {
  const char* mask = std::getenv("KLMS_DISABLE_SIMD");
  if (mask == nullptr || std::string(mask) != "avx512") GTEST_SKIP() << "KLMS_DISABLE_SIMD=avx512 not set";
  const CpuFeatures& c = cpu_features();
  EXPECT_FALSE(c.avx512f);
  EXPECT_FALSE(c.avx512vl);
  EXPECT_EQ(c.avx2, detect_cpu_features_uncached().avx2) << "only AVX-512 is hidden";
  for (PathSlot slot : kAllPathSlots) {
    EXPECT_NE(chosen_path(slot), HashPath::kAvx512) << path_slot_name(slot);
  }
  if (c.avx2) {
    EXPECT_EQ(chosen_path(PathSlot::kLsh256), HashPath::kAvx2MessageLanes);
    EXPECT_EQ(lsh256_fastest().isa, LshIsa::kAvx2MessageLanes);
  }
}

// Whatever the row, the choice is something the CPU can run, down to a CPU with nothing but SSE2.
TEST(CpuPaths, ChoiceAlwaysRunsOnTheCpu) {
  CpuFeatures bare;
  bare.sse2 = true;
  for (const CpuFeatures& c : {zen4(), bare, cpu_features()}) {
    for (PathSlot slot : kAllPathSlots) {
      const HashPath p = choose_path(slot, c);
      EXPECT_TRUE(hash_path_runs_on(p, c)) << path_slot_name(slot) << ": " << hash_path_name(p);
    }
  }
  for (PathSlot slot : kAllPathSlots) EXPECT_EQ(choose_path(slot, bare), HashPath::kPortable) << path_slot_name(slot);
}

// The backends in this process are built on chosen_path().
TEST(CpuPaths, BackendsFollowTheTable) {
  EXPECT_EQ(lsh256_fastest().isa, lsh_isa_of(chosen_path(PathSlot::kLsh256)));
  EXPECT_EQ(lsh512_fastest().isa, lsh_isa_of(chosen_path(PathSlot::kLsh512)));
  if (available(BackendId::kSha256Hw)) {
    const bool lanes = chosen_path(PathSlot::kSha256Many) == HashPath::kAvx512;
    EXPECT_EQ(backend(BackendId::kSha256Hw)->implementation, lanes ? "sha-ni+avx512-x16" : "sha-ni");
  }
  const std::string shake(backend(BackendId::kShake256)->implementation);
  EXPECT_EQ(shake, std::string(hash_path_name(chosen_path(PathSlot::kShake256Many))));
  EXPECT_EQ(backend(BackendId::kTdmCham)->implementation, hash_path_name(chosen_path(PathSlot::kTdmChamMany)));
  EXPECT_EQ(backend(BackendId::kTdmLea)->implementation, hash_path_name(chosen_path(PathSlot::kTdmLeaMany)));
  EXPECT_EQ(backend(BackendId::kTdmAria)->implementation, hash_path_name(chosen_path(PathSlot::kTdmAriaMany)));
}

}  // namespace
}  // namespace klms::hashes
