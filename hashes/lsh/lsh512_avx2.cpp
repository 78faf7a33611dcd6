// LSH-512 with AVX2: each 4-word quarter is one 256-bit register. Called only when cpu_features().avx2.
// The code is lsh512_simd_one.h's, compiled with this file's flags (hashes/CMakeLists.txt).
#include "hashes/lsh/lsh512_simd_one.h"

namespace klms::hashes {

namespace lsh_detail {
constexpr Lsh512Implementation kLsh512Avx2 = lsh512_simd::implementation(LshIsa::kAvx2, "avx2");
}  // namespace lsh_detail

const Lsh512Implementation& lsh512_avx2() noexcept { return lsh_detail::kLsh512Avx2; }

}  // namespace klms::hashes
