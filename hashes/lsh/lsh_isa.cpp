#include "hashes/lsh/lsh_isa.h"

#include "hashes/cpu_features.h"

namespace klms::hashes {

std::string_view lsh_isa_name(LshIsa isa) noexcept {
  switch (isa) {
    case LshIsa::kPortable:
      return "portable";
    case LshIsa::kSse2:
      return "sse2";
    case LshIsa::kAvx2:
      return "avx2";
    case LshIsa::kAvx2MessageLanes:
      return "avx2msg";
    case LshIsa::kAvx512:
      return "avx512";
  }
  return "unknown";
}

LshIsa lsh_isa_of(HashPath path) noexcept {
  switch (path) {
    case HashPath::kSse2: return LshIsa::kSse2;
    case HashPath::kAvx2: return LshIsa::kAvx2;
    case HashPath::kAvx2MessageLanes: return LshIsa::kAvx2MessageLanes;
    case HashPath::kAvx512: return LshIsa::kAvx512;
    default: return LshIsa::kPortable;
  }
}

bool lsh_isa_supported(LshIsa isa) noexcept {
  const CpuFeatures& f = cpu_features();
  switch (isa) {
    case LshIsa::kPortable:
      return true;
    case LshIsa::kSse2:
      return f.sse2 && f.ssse3;  // the "sse2" code uses pshufb for the byte rotations
    case LshIsa::kAvx2:
    case LshIsa::kAvx2MessageLanes:
      return f.avx2;
    case LshIsa::kAvx512:
      return f.avx2 && f.avx512f && f.avx512vl;
  }
  return false;
}

}  // namespace klms::hashes
