// Keccak-f[1600] on 64-bit lanes in plain C++: each round is straight-line code with constant
// rotations (keccak_round.h folds over the lane indices).
#include <bit>

#include "hashes/keccak/keccak.h"
#include "hashes/keccak/keccak_round.h"

namespace klms::hashes::keccak {
namespace {

struct ScalarOps {
  static std::uint64_t xor2(std::uint64_t a, std::uint64_t b) noexcept { return a ^ b; }
  static std::uint64_t xor5(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d,
                            std::uint64_t e) noexcept {
    return a ^ b ^ c ^ d ^ e;
  }
  template <int N>
  static std::uint64_t rotl(std::uint64_t x) noexcept {
    return std::rotl(x, N);
  }
  static std::uint64_t chi(std::uint64_t a, std::uint64_t b, std::uint64_t c) noexcept { return a ^ (~b & c); }
};

}  // namespace

void permute(State& state) noexcept {
  permute_lanes<ScalarOps>(state, [](std::size_t r) { return kRoundConstants[r]; });
}

}  // namespace klms::hashes::keccak
