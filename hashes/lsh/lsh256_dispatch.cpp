// Choosing the LSH-256 implementation: once, from the measured path table (cpu_paths.h), and kept in a
// static pointer.
#include <cstring>

#include "hashes/cpu_paths.h"

#include "hashes/cpu_features.h"
#include "hashes/lsh/lsh256.h"
#include "hashes/lsh/lsh_params.h"

namespace klms::hashes {
namespace {

// Fastest first. The AVX-512VL code is the AVX2 code with single-instruction rotations (and 16-lane
// hash_many), so it wins wherever it runs.

const Lsh256Implementation& by_isa(LshIsa isa) noexcept {
  switch (isa) {
    case LshIsa::kSse2:
      return lsh256_sse2();
    case LshIsa::kAvx2:
      return lsh256_avx2();
    case LshIsa::kAvx2MessageLanes:
      return lsh256_avx2_msg();
    case LshIsa::kAvx512:
      return lsh256_avx512();
    case LshIsa::kPortable:
      break;
  }
  return lsh256_portable();
}

}  // namespace

const Lsh256Implementation* lsh256_implementation(LshIsa isa) noexcept {
  return lsh_isa_supported(isa) ? &by_isa(isa) : nullptr;
}

const Lsh256Implementation& lsh256_fastest() noexcept {
  static const Lsh256Implementation* const chosen = [] {
    const LshIsa isa = lsh_isa_of(chosen_path(PathSlot::kLsh256));
    return lsh_isa_supported(isa) ? &by_isa(isa) : &lsh256_portable();
  }();
  return *chosen;
}

const std::uint32_t* lsh256_iv(std::size_t output_bytes) noexcept {
  return output_bytes == 28 ? lsh::kIv256_224.data() : lsh::kIv256_256.data();
}

void lsh256_init(Lsh256Context& ctx, std::size_t output_bytes) noexcept {
  std::memcpy(ctx.cv, lsh256_iv(output_bytes), sizeof(ctx.cv));
  ctx.buffered = 0;
  ctx.output_bytes = output_bytes;
}

// Deliberately wrong: CPUID/XGETBV on every digest (see lsh256.h).
void lsh256_digest_naive_dispatch(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept {
  const CpuFeatures f = detect_cpu_features_uncached();
  LshIsa isa = LshIsa::kPortable;
  if (f.avx2 && f.avx512f && f.avx512vl) {
    isa = LshIsa::kAvx512;
  } else if (f.avx2) {
    isa = LshIsa::kAvx2;
  } else if (f.ssse3) {
    isa = LshIsa::kSse2;
  }
  by_isa(isa).digest(lsh::kIv256_256.data(), nullptr, 0, in, len, out, 32);
}

}  // namespace klms::hashes
