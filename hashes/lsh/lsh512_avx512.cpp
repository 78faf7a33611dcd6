// LSH-512 with AVX-512VL: the AVX2 code with single-instruction rotations (vprolq). Called only when cpu_features() has
// AVX-512F and AVX-512VL.
// The code is lsh512_simd_one.h's, compiled with this file's flags (hashes/CMakeLists.txt).
#include "hashes/lsh/lsh512_simd_one.h"

namespace klms::hashes {

namespace lsh_detail {
constexpr Lsh512Implementation kLsh512Avx512 = lsh512_simd::implementation(LshIsa::kAvx512, "avx512");
}  // namespace lsh_detail

const Lsh512Implementation& lsh512_avx512() noexcept { return lsh_detail::kLsh512Avx512; }

}  // namespace klms::hashes
