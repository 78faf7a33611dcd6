// The WOTS+ chains of XMSS over SHA-256 with n = 32 (XMSS-SHA2_*_256, XMSSMT-SHA2_*_256), fused:
// one chain step at address ADRS is (RFC 8391 §3.1.2, §4.1.2, §5.1)
//
//   KEY = PRF(SEED, ADRS.keyAndMask = 0)     PRF(S, A) = SHA-256(toByte(3, 32) || S || A)
//   BM  = PRF(SEED, ADRS.keyAndMask = 1)
//   x   = F(KEY, x XOR BM)                   F(K, M)   = SHA-256(toByte(0, 32) || K || M)
//
// four compressions: the PRF's first block toByte(3, 32) || SEED is the same for the whole key (its
// chaining value, the midstate, comes with the call), so each PRF is the one block ADRS || padding;
// F is the block toByte(0, 32) || KEY and the block (x XOR BM) || padding. A kernel keeps a group of
// chains in registers for all of its steps — the value, the keys and masks, the ADRS words — and
// loads and stores each value once. What is the same in every lane and step is folded once per call
// (XmssChainConstants): rounds 0-3 of the PRF block (ADRS words 0-3: layer, tree, type), rounds 0-7
// of F's first block (eight zero words), and the message-schedule terms of the constant words
// (ADRS.keyAndMask, the padding, the zeros). The key and the mask of a step share rounds 4-6 (they
// differ in word 7 only).
//
// Paths: 16 AVX-512 lanes, 8 AVX2 lanes, SHA-NI with 4 chains interleaved (σ0 in software or with
// sha256msg1). xmss_chains() is the one sha256-hw uses on this CPU (the path table's choice for its
// hash_many, hashes/cpu_paths.cpp; on SHA-NI, sha256msg1 on AMD, where it measured faster);
// xmss_chain_kernels() lists every one this CPU runs, for the cross-path tests and the benchmarks.
// The LMS paths (hash_many, chain_steps) do not use any of this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace klms::hashes::sha256 {

// One chain: `value` (32 bytes, in place) advanced by `steps` chain steps at hash addresses start,
// start + 1, ...; ADRS words 4 and 5 are the OTS and chain indices.
struct XmssChain {
  std::uint8_t* value;
  std::uint32_t ots_index;
  std::uint32_t chain_index;
  std::uint32_t start;
  std::uint32_t steps;
};

// The chains of one call share SEED (through the PRF midstate) and ADRS words 0-3 (layer address,
// tree address, type 0 = OTS). `chains` may be reordered by the call; every value pointer is
// written once, at the end of its chain.
struct XmssChainKey {
  std::uint32_t prf_midstate[8];  // the chaining value after toByte(3, 32) || SEED, a..h
  std::uint32_t tree_words[4];    // ADRS words 0-3
};

using XmssChainsFn = void (*)(const XmssChainKey& key, XmssChain* chains, std::size_t count) noexcept;

// The kernel sha256-hw uses on this CPU; null without SHA-NI (sha256-hw is then absent).
XmssChainsFn xmss_chains() noexcept;

struct XmssChainKernel {
  std::string_view name;  // "avx512-x16", "avx2-x8", "sha-ni-x4", "sha-ni-msg1-x4", "portable"
  XmssChainsFn run;
};
// Every kernel this CPU runs ("portable" always: plain C++, one chain at a time).
std::span<const XmssChainKernel> xmss_chain_kernels() noexcept;

// ---- What the kernels share (sha256_xmss_lanes.h, sha256_xmss_chains_shani.cpp) -------------------

// The message words of each block that differ between lanes or steps (bit t: word t); the others
// are the same everywhere, and so are the schedule words computed from constant words only.
inline constexpr std::uint16_t kPrfVarying = 0x0070;      // ADRS words 4, 5, 6 (OTS, chain, hash)
inline constexpr std::uint16_t kFirstFVarying = 0xFF00;   // KEY, after toByte(0, 32)
inline constexpr std::uint16_t kSecondFVarying = 0x00FF;  // x XOR BM, before the padding

// Which schedule words W[0..63] of a block differ between lanes or steps: a message word when
// its bit is set, a later word when any of the four it is computed from does.
struct ScheduleVaries {
  bool word[64];
  // Whether a varying word t >= 16 has a constant term (a word it is computed from that does not vary).
  bool has_constant[64];
};
constexpr ScheduleVaries schedule_varies(std::uint16_t varying) noexcept {
  ScheduleVaries s{};
  for (std::size_t t = 0; t < 16; ++t) s.word[t] = ((varying >> t) & 1u) != 0;
  for (std::size_t t = 16; t < 64; ++t) {
    const bool a = s.word[t - 16], b = s.word[t - 15], c = s.word[t - 7], d = s.word[t - 2];
    s.word[t] = a || b || c || d;
    s.has_constant[t] = !a || !b || !c || !d;
  }
  return s;
}

struct XmssBlockConstants {
  alignas(64) std::uint32_t kw[64];    // K[t] + W[t], where W[t] is constant
  alignas(64) std::uint32_t part[64];  // where it varies (t >= 16): the sum of its constant terms
};

// Per call, from the key (xmss_chain_constants, plain C++).
struct XmssChainConstants {
  std::uint32_t prf_midstate[8];
  alignas(16) std::uint32_t prf_midstate_abef[4], prf_midstate_cdgh[4];  // in SHA-NI order
  std::uint32_t prf_round4[8];  // the PRF block's state after rounds 0-3, slot order (sha256_rounds.h)
  alignas(16) std::uint32_t prf_abef[4], prf_cdgh[4];  // the same in SHA-NI order
  alignas(16) std::uint32_t tree_words[4];
  std::uint32_t f_round8[8];  // F's first block after rounds 0-7 (eight zero words), a..h
  alignas(16) std::uint32_t f_abef[4], f_cdgh[4];
  XmssBlockConstants prf[2];  // keyAndMask = 0, 1
  XmssBlockConstants first_f, second_f;
};
void xmss_chain_constants(const XmssChainKey& key, XmssChainConstants& out) noexcept;

// The kernels of each path: only after the CPU check (sha256_xmss_chains.cpp).
namespace lanes {
void xmss_chains_avx512(const XmssChainConstants& c, XmssChain* chains, std::size_t count) noexcept;
void xmss_chains_avx2(const XmssChainConstants& c, XmssChain* chains, std::size_t count) noexcept;
}  // namespace lanes
namespace shani {
// σ0 of the schedule in SSE2 shifts (as the LMS hash_many; Intel) or with sha256msg1 (AMD Zen 4).
void xmss_chains(const XmssChainConstants& c, XmssChain* chains, std::size_t count) noexcept;
void xmss_chains_msg1(const XmssChainConstants& c, XmssChain* chains, std::size_t count) noexcept;
}  // namespace shani

}  // namespace klms::hashes::sha256
