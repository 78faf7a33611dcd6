// LSH (KS X 3262): the algorithm's fixed parameters, the step constants and the IVs, all computed at
// compile time from the definitions, plus a constexpr reference compression function. Both LSH-256
// (32-bit words) and LSH-512 (64-bit words) share the structure; only the word size, the number of
// steps and the rotation amounts differ.
//
// Everything here is constexpr and free of instruction-set specifics, so any file may include it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace klms::hashes::lsh {

inline constexpr std::size_t kCvWords = 16;     // chaining value
inline constexpr std::size_t kBlockWords = 32;  // message block: M0 = words 0..15, M1 = words 16..31

// Message expansion permutation τ within each 8-word half, and the word permutation σ after each step.
inline constexpr std::array<int, 8> kTau = {3, 2, 0, 1, 7, 4, 5, 6};
inline constexpr std::array<int, 16> kSigma = {6, 4, 5, 7, 12, 15, 14, 13, 2, 0, 1, 3, 8, 11, 10, 9};

template <class Word>
struct Params;

template <>
struct Params<std::uint32_t> {
  static constexpr int kSteps = 26;
  static constexpr int kAlphaEven = 29, kBetaEven = 1, kAlphaOdd = 5, kBetaOdd = 17;
  static constexpr std::array<int, 8> kGamma = {0, 8, 16, 24, 24, 16, 8, 0};
  static constexpr std::array<std::uint32_t, 8> kSc0 = {0x917caf90, 0x6c1b10a2, 0x6f352943, 0xcf778243,
                                                        0x2ceb7472, 0x29e96ff2, 0x8a9ba428, 0x2eeb2642};
  static constexpr std::size_t kMaxOutputBytes = 32;
};

template <>
struct Params<std::uint64_t> {
  static constexpr int kSteps = 28;
  static constexpr int kAlphaEven = 23, kBetaEven = 59, kAlphaOdd = 7, kBetaOdd = 3;
  static constexpr std::array<int, 8> kGamma = {0, 16, 32, 48, 8, 24, 40, 56};
  static constexpr std::array<std::uint64_t, 8> kSc0 = {0x97884283c938982a, 0xba1fca93533e2355, 0xc519a2e87aeb1c03,
                                                        0x9a0fc95462af17b1, 0xfc3dda8ab019a82b, 0x02825d079a895407,
                                                        0x79f2d0a7ee06a6f7, 0xd76d15eed9fdf5fe};
  static constexpr std::size_t kMaxOutputBytes = 64;
};

template <class Word>
inline constexpr int kWordBits = static_cast<int>(8 * sizeof(Word));

// Rotation that is well defined for r = 0 (no shift by the word size).
template <class Word>
constexpr Word rotl(Word x, int r) noexcept {
  r &= kWordBits<Word> - 1;
  return r == 0 ? x : static_cast<Word>((x << r) | (x >> (kWordBits<Word> - r)));
}

template <class Word>
using StepConstants = std::array<std::array<Word, 8>, Params<Word>::kSteps>;

// SC_j[l] = SC_{j-1}[l] + rotl(SC_{j-1}[l], 8).
template <class Word>
constexpr StepConstants<Word> make_step_constants() noexcept {
  StepConstants<Word> sc{};
  sc[0] = Params<Word>::kSc0;
  for (int j = 1; j < Params<Word>::kSteps; ++j) {
    for (int l = 0; l < 8; ++l) {
      const Word prev = sc[j - 1][l];
      sc[j][l] = static_cast<Word>(prev + rotl(prev, 8));
    }
  }
  return sc;
}

template <class Word>
inline constexpr StepConstants<Word> kStepConstants = make_step_constants<Word>();

template <class Word>
constexpr int alpha(int step) noexcept {
  return step % 2 == 0 ? Params<Word>::kAlphaEven : Params<Word>::kAlphaOdd;
}
template <class Word>
constexpr int beta(int step) noexcept {
  return step % 2 == 0 ? Params<Word>::kBetaEven : Params<Word>::kBetaOdd;
}

// The compression function exactly as the standard states it: words in, words out. Used to derive
// the IVs at compile time and as the portable implementation's core.
template <class Word>
constexpr void compress_words(std::array<Word, kCvWords>& cv, const std::array<Word, kBlockWords>& block) noexcept {
  std::array<Word, kCvWords> older{};  // M_{j-2}
  std::array<Word, kCvWords> old{};    // M_{j-1}
  std::array<Word, kCvWords> m{};      // M_j
  for (int j = 0; j <= Params<Word>::kSteps; ++j) {
    for (int l = 0; l < 16; ++l) {
      if (j < 2) {
        m[l] = block[16 * j + l];
      } else {
        m[l] = static_cast<Word>(old[l] + older[kTau[l % 8] + 8 * (l / 8)]);
      }
      cv[l] ^= m[l];
    }
    if (j == Params<Word>::kSteps) break;  // the final CV ^= M_N has no mixing after it
    for (int l = 0; l < 8; ++l) {
      Word x = cv[l];
      Word y = cv[l + 8];
      x = static_cast<Word>(x + y);
      x = rotl(x, alpha<Word>(j));
      x ^= kStepConstants<Word>[j][l];
      y = static_cast<Word>(y + x);
      y = rotl(y, beta<Word>(j));
      x = static_cast<Word>(x + y);
      y = rotl(y, Params<Word>::kGamma[l]);
      cv[l] = x;
      cv[l + 8] = y;
    }
    std::array<Word, kCvWords> permuted{};
    for (int l = 0; l < 16; ++l) permuted[l] = cv[kSigma[l]];
    cv = permuted;
    older = old;
    old = m;
  }
}

// IV: CV = 0 except CV[0] = maximum output bytes and CV[1] = output bits, compressed with a zero block.
template <class Word>
constexpr std::array<Word, kCvWords> make_iv(std::size_t output_bits) noexcept {
  std::array<Word, kCvWords> cv{};
  cv[0] = static_cast<Word>(Params<Word>::kMaxOutputBytes);
  cv[1] = static_cast<Word>(output_bits);
  compress_words<Word>(cv, std::array<Word, kBlockWords>{});
  return cv;
}

inline constexpr std::array<std::uint32_t, kCvWords> kIv256_256 = make_iv<std::uint32_t>(256);
inline constexpr std::array<std::uint32_t, kCvWords> kIv256_224 = make_iv<std::uint32_t>(224);
inline constexpr std::array<std::uint64_t, kCvWords> kIv512_512 = make_iv<std::uint64_t>(512);
inline constexpr std::array<std::uint64_t, kCvWords> kIv512_384 = make_iv<std::uint64_t>(384);
inline constexpr std::array<std::uint64_t, kCvWords> kIv512_256 = make_iv<std::uint64_t>(256);
inline constexpr std::array<std::uint64_t, kCvWords> kIv512_224 = make_iv<std::uint64_t>(224);

// The published IV prefixes (docs/primitives.md "LSH (KS X 3262)"): a compile-time check that the derivation is right.
static_assert(kIv256_256[0] == 0x46a10f1f && kIv256_256[1] == 0xfddce486);
static_assert(kIv512_224[0] == 0x0c401e9fe8813a55 && kIv512_224[15] == 0xe00d2cd88b4b6c6a);

}  // namespace klms::hashes::lsh
