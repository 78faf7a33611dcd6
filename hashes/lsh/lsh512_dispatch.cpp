// Choosing the LSH-512 implementation: once, from the measured path table (cpu_paths.h), and kept in a
// static pointer.
#include <cstring>

#include "hashes/cpu_paths.h"

#include "hashes/lsh/lsh512.h"
#include "hashes/lsh/lsh_params.h"

namespace klms::hashes {
namespace {


const Lsh512Implementation& by_isa(LshIsa isa) noexcept {
  switch (isa) {
    case LshIsa::kSse2:
      return lsh512_sse2();
    case LshIsa::kAvx2:
    case LshIsa::kAvx2MessageLanes:  // message lanes are an LSH-256 hash_many layout; same ISA level
      return lsh512_avx2();
    case LshIsa::kAvx512:
      return lsh512_avx512();
    case LshIsa::kPortable:
      break;
  }
  return lsh512_portable();
}

}  // namespace

const Lsh512Implementation* lsh512_implementation(LshIsa isa) noexcept {
  return lsh_isa_supported(isa) ? &by_isa(isa) : nullptr;
}

const Lsh512Implementation& lsh512_fastest() noexcept {
  static const Lsh512Implementation* const chosen = [] {
    const LshIsa isa = lsh_isa_of(chosen_path(PathSlot::kLsh512));
    return lsh_isa_supported(isa) ? &by_isa(isa) : &lsh512_portable();
  }();
  return *chosen;
}

const std::uint64_t* lsh512_iv(std::size_t output_bytes) noexcept {
  switch (output_bytes) {
    case 48:
      return lsh::kIv512_384.data();
    case 32:
      return lsh::kIv512_256.data();
    case 28:
      return lsh::kIv512_224.data();
    default:
      return lsh::kIv512_512.data();
  }
}

void lsh512_init(Lsh512Context& ctx, std::size_t output_bytes) noexcept {
  std::memcpy(ctx.cv, lsh512_iv(output_bytes), sizeof(ctx.cv));
  ctx.buffered = 0;
  ctx.output_bytes = output_bytes;
}

}  // namespace klms::hashes
