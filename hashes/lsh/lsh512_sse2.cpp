// LSH-512 with SSE2 + SSSE3 (pshufb): each 4-word quarter is a pair of 128-bit registers. Called only when
// cpu_features() has SSSE3.
// The code is lsh512_simd_one.h's, compiled with this file's flags (hashes/CMakeLists.txt).
#include "hashes/lsh/lsh512_simd_one.h"

namespace klms::hashes {

namespace lsh_detail {
constexpr Lsh512Implementation kLsh512Sse2 = lsh512_simd::implementation(LshIsa::kSse2, "sse2");
}  // namespace lsh_detail

const Lsh512Implementation& lsh512_sse2() noexcept { return lsh_detail::kLsh512Sse2; }

}  // namespace klms::hashes
