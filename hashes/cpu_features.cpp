#include "hashes/cpu_features.h"

#include <cpuid.h>

#include <cstdlib>
#include <cstring>

namespace klms::hashes {
namespace {

// XCR0 tells whether the OS saves the YMM/ZMM registers; without that, AVX must not be used.
unsigned long long read_xcr0() noexcept {
  unsigned eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}

// KLMS_DISABLE_SIMD: "1" hides every SIMD extension past SSE2; "avx512" hides AVX-512 only, so that
// the tests can run the paths an AVX2-only CPU takes (docs/performance.md "Which code path runs, per CPU").
enum class SimdMask { kNone, kAll, kAvx512 };

SimdMask simd_mask_from_environment() noexcept {
  const char* value = std::getenv("KLMS_DISABLE_SIMD");
  if (value == nullptr) return SimdMask::kNone;
  if (std::strcmp(value, "1") == 0) return SimdMask::kAll;
  if (std::strcmp(value, "avx512") == 0) return SimdMask::kAvx512;
  return SimdMask::kNone;
}

}  // namespace

// Three CPUID instructions, each asked once: under a hypervisor every CPUID traps to it (about
// 4.5 us each on the 2-vCPU Zen 4 guest), and __get_cpuid asks leaf
// 0 again before each leaf (six traps, ~27 us of every process that uses klms).
CpuFeatures detect_cpu_features_uncached() noexcept {
  CpuFeatures f;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  __cpuid(0, eax, ebx, ecx, edx);
  const unsigned max_leaf = eax;
  char vendor[12];
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  f.intel = std::memcmp(vendor, "GenuineIntel", 12) == 0;
  f.vendor = f.intel ? CpuVendor::kIntel
             : std::memcmp(vendor, "AuthenticAMD", 12) == 0 ? CpuVendor::kAmd
                                                            : CpuVendor::kOther;
  if (max_leaf < 1) return f;
  __cpuid(1, eax, ebx, ecx, edx);
  const unsigned base_family = (eax >> 8) & 0xf;
  f.family = base_family == 0xf ? base_family + ((eax >> 20) & 0xff) : base_family;
  f.model = ((eax >> 4) & 0xf) | ((base_family == 0x6 || base_family == 0xf) ? ((eax >> 16) & 0xf) << 4 : 0);
  f.sse2 = (edx & bit_SSE2) != 0;
  f.ssse3 = (ecx & bit_SSSE3) != 0;
  f.sse41 = (ecx & bit_SSE4_1) != 0;
  const bool osxsave = (ecx & bit_OSXSAVE) != 0;
  const bool avx = (ecx & bit_AVX) != 0;
  const unsigned long long xcr0 = osxsave ? read_xcr0() : 0;
  const bool ymm_saved = (xcr0 & 0x6) == 0x6;
  const bool zmm_saved = (xcr0 & 0xe6) == 0xe6;
  f.avx = avx && ymm_saved;
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    f.avx2 = avx && ymm_saved && (ebx & bit_AVX2) != 0;
    f.sha_ni = (ebx & bit_SHA) != 0 && f.sse41;
    f.avx512f = zmm_saved && (ebx & bit_AVX512F) != 0;
    f.avx512vl = f.avx512f && (ebx & bit_AVX512VL) != 0;
    f.gfni = (ecx & bit_GFNI) != 0;
  }
  return f;
}

const CpuFeatures& real_cpu_features() noexcept {
  static const CpuFeatures detected = detect_cpu_features_uncached();
  return detected;
}

const CpuFeatures& cpu_features() noexcept {
  static const CpuFeatures features = [] {
    const CpuFeatures& detected = real_cpu_features();
    switch (simd_mask_from_environment()) {
      case SimdMask::kAll: {
        CpuFeatures none;
        none.sse2 = true;  // part of x86-64 itself
        none.intel = detected.intel;  // what the CPU is, without its SIMD
        none.vendor = detected.vendor;
        none.family = detected.family;
        none.model = detected.model;
        return none;
      }
      case SimdMask::kAvx512: {
        CpuFeatures avx2_only = detected;
        avx2_only.avx512f = false;
        avx2_only.avx512vl = false;
        return avx2_only;
      }
      case SimdMask::kNone:
        break;
    }
    return detected;
  }();
  return features;
}

}  // namespace klms::hashes
