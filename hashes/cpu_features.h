// CPU features, read once. Callers keep the answer (in a Backend table or an implementation
// pointer); nothing calls these per digest.
#pragma once

#include <cstdint>

namespace klms::hashes {

enum class CpuVendor : std::uint8_t { kOther, kIntel, kAmd };

struct CpuFeatures {
  bool sse2 = false;
  bool ssse3 = false;
  bool sse41 = false;
  bool avx = false;  // AVX with the YMM registers saved by the OS
  bool avx2 = false;
  bool sha_ni = false;
  bool avx512f = false;
  bool avx512vl = false;
  bool gfni = false;  // Galois-field instructions (ARIA's S-boxes as affine maps)
  bool intel = false;  // vendor: some choices depend on how fast an instruction is, not only on its presence
  // What the CPU is, for the measured path table (cpu_paths.h): vendor and the display family and
  // model of CPUID leaf 1 (extended fields folded in, as the vendors document them).
  CpuVendor vendor = CpuVendor::kOther;
  unsigned family = 0;
  unsigned model = 0;
};

// Detected on first call (thread-safe), cached afterwards. KLMS_DISABLE_SIMD=1 in the environment
// reports no SIMD at all, so tests and benchmarks can force the portable paths.
const CpuFeatures& cpu_features() noexcept;

// What the CPU has, whatever KLMS_DISABLE_SIMD says (detected once): for code that must act on the
// real register file, such as wiping vector registers other code (glibc) may have filled.
const CpuFeatures& real_cpu_features() noexcept;

// Runs CPUID/XGETBV every time: only for the benchmark that demonstrates why not to do this.
CpuFeatures detect_cpu_features_uncached() noexcept;

}  // namespace klms::hashes
