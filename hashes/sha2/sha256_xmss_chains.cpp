// The constants of sha256_xmss_chains.h, the portable kernel and the dispatch. Compiled without
// special flags: the AVX-512, AVX2 and SHA-NI kernels live in their own files and run only after
// the CPU check.
#include "hashes/sha2/sha256_xmss_chains.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "hashes/cpu_features.h"
#include "hashes/cpu_paths.h"
#include "hashes/sha2/sha256_common.h"
#include "hashes/sha2/sha256_portable.h"
#include "hashes/sha2/sha256_rounds.h"

namespace klms::hashes::sha256 {
namespace {

// The bit lengths of the inputs: PRF toByte(3, 32) || SEED || ADRS and F toByte(0, 32) || KEY || M
// are both 96 bytes.
constexpr std::uint32_t kInputBits = 96 * 8;

void block_constants(std::uint16_t varying, const std::uint32_t* words, XmssBlockConstants& c) noexcept {
  const ScheduleVaries v = schedule_varies(varying);
  std::uint32_t w[64];  // the whole word where it is constant, its constant terms where it varies
  for (std::size_t t = 0; t < 16; ++t) w[t] = v.word[t] ? 0 : words[t];
  for (std::size_t t = 16; t < 64; ++t) {
    std::uint32_t x = 0;
    if (!v.word[t - 16]) x += w[t - 16];
    if (!v.word[t - 15]) x += small_sigma0(w[t - 15]);
    if (!v.word[t - 7]) x += w[t - 7];
    if (!v.word[t - 2]) x += small_sigma1(w[t - 2]);
    w[t] = x;
  }
  for (std::size_t t = 0; t < 64; ++t) {
    c.kw[t] = v.word[t] ? 0 : kRoundConstants[t] + w[t];
    c.part[t] = v.word[t] ? w[t] : 0;
  }
}

// SHA-NI keeps a..h as {F, E, B, A} and {H, G, D, C}.
void to_shani_order(const std::uint32_t* abcdefgh, std::uint32_t* abef, std::uint32_t* cdgh) noexcept {
  const std::uint32_t* s = abcdefgh;
  const std::uint32_t x[4] = {s[5], s[4], s[1], s[0]}, y[4] = {s[7], s[6], s[3], s[2]};
  std::memcpy(abef, x, sizeof x);
  std::memcpy(cdgh, y, sizeof y);
}

// One chain at a time with the portable compression: the reference the cross-path tests hold the
// other kernels to, written straight from the definition (no folding).
void chains_portable(const XmssChainConstants& c, XmssChain* chains, std::size_t count) noexcept {
  for (std::size_t k = 0; k < count; ++k) {
    XmssChain& ch = chains[k];
    std::uint8_t x[32];
    std::memcpy(x, ch.value, 32);
    for (std::uint32_t i = 0; i < ch.steps; ++i) {
      std::uint32_t prf[2][8];
      for (std::uint32_t km = 0; km < 2; ++km) {
        std::uint8_t block[64] = {};
        const std::uint32_t adrs[8] = {c.tree_words[0], c.tree_words[1], c.tree_words[2], c.tree_words[3],
                                       ch.ots_index,    ch.chain_index,  ch.start + i,    km};
        for (std::size_t j = 0; j < 8; ++j) store_be32(block + 4 * j, adrs[j]);
        block[32] = 0x80;
        store_be64(block + 56, kInputBits);
        std::memcpy(prf[km], c.prf_midstate, sizeof prf[km]);
        compress_blocks(prf[km], block, 1);
      }
      std::uint8_t f[128] = {};
      for (std::size_t j = 0; j < 8; ++j) {
        store_be32(f + 32 + 4 * j, prf[0][j]);
        store_be32(f + 64 + 4 * j, load_be32(x + 4 * j) ^ prf[1][j]);
      }
      f[96] = 0x80;
      store_be64(f + 120, kInputBits);
      std::uint32_t h[8];
      std::memcpy(h, kInitialState, sizeof h);
      compress_blocks(h, f, 2);
      for (std::size_t j = 0; j < 8; ++j) store_be32(x + 4 * j, h[j]);
    }
    std::memcpy(ch.value, x, 32);
  }
}

// The lane kernels run a group for as many steps as its longest chain: sorting by length (signing
// and verification end or start the chains at the message's digits) keeps the idle lanes few.
template <void (*Kernel)(const XmssChainConstants&, XmssChain*, std::size_t) noexcept>
void run(const XmssChainKey& key, XmssChain* chains, std::size_t count) noexcept {
  if (count == 0) return;
  XmssChainConstants c;
  xmss_chain_constants(key, c);
  const bool uniform = std::all_of(chains, chains + count, [&](const XmssChain& x) { return x.steps == chains[0].steps; });
  if (!uniform) {
    std::sort(chains, chains + count, [](const XmssChain& a, const XmssChain& b) { return a.steps > b.steps; });
  }
  Kernel(c, chains, count);
}

constexpr XmssChainKernel kPortable{"portable", run<chains_portable>};
constexpr XmssChainKernel kAvx512{"avx512-x16", run<lanes::xmss_chains_avx512>};
constexpr XmssChainKernel kAvx2{"avx2-x8", run<lanes::xmss_chains_avx2>};
constexpr XmssChainKernel kShaNi{"sha-ni-x4", run<shani::xmss_chains>};
constexpr XmssChainKernel kShaNiMsg1{"sha-ni-msg1-x4", run<shani::xmss_chains_msg1>};

struct KernelList {
  std::array<XmssChainKernel, 5> all{};
  std::size_t count = 0;
};

}  // namespace

void xmss_chain_constants(const XmssChainKey& key, XmssChainConstants& out) noexcept {
  std::memcpy(out.prf_midstate, key.prf_midstate, sizeof out.prf_midstate);
  to_shani_order(key.prf_midstate, out.prf_midstate_abef, out.prf_midstate_cdgh);
  std::memcpy(out.tree_words, key.tree_words, sizeof out.tree_words);
  // The PRF block ADRS || 0x80 || zeros || length, keyAndMask 0 or 1; words 4-6 vary.
  std::uint32_t prf[16] = {key.tree_words[0], key.tree_words[1], key.tree_words[2], key.tree_words[3],
                           0, 0, 0, 0, 0x80000000u, 0, 0, 0, 0, 0, 0, kInputBits};
  block_constants(kPrfVarying, prf, out.prf[0]);
  prf[7] = 1;
  block_constants(kPrfVarying, prf, out.prf[1]);
  {
    Slots v;
    Schedule w{};
    std::memcpy(v, key.prf_midstate, sizeof v);
    std::memcpy(w, key.tree_words, 4 * sizeof w[0]);
    rounds<0, 4>(v, w);
    std::memcpy(out.prf_round4, v, sizeof v);
    // At round 4, a..h sit in slots 4, 5, 6, 7, 0, 1, 2, 3.
    const std::uint32_t a_to_h[8] = {v[4], v[5], v[6], v[7], v[0], v[1], v[2], v[3]};
    to_shani_order(a_to_h, out.prf_abef, out.prf_cdgh);
  }
  // F's first block toByte(0, 32) || KEY: words 0-7 are zero; its second (x XOR BM) || padding.
  const std::uint32_t zeros[16] = {};
  block_constants(kFirstFVarying, zeros, out.first_f);
  const std::uint32_t second[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0x80000000u, 0, 0, 0, 0, 0, 0, kInputBits};
  block_constants(kSecondFVarying, second, out.second_f);
  {
    Slots v;
    Schedule w{};
    std::memcpy(v, kInitialState, sizeof v);
    rounds<0, 8>(v, w);  // after 8 rounds the slots are in order again
    std::memcpy(out.f_round8, v, sizeof v);
    to_shani_order(v, out.f_abef, out.f_cdgh);
  }
}

std::span<const XmssChainKernel> xmss_chain_kernels() noexcept {
  static const KernelList list = [] {
    KernelList l;
    const CpuFeatures& cpu = cpu_features();
    l.all[l.count++] = kPortable;
    if (hash_path_runs_on(HashPath::kShaNi, cpu)) {
      l.all[l.count++] = kShaNi;
      l.all[l.count++] = kShaNiMsg1;
    }
    if (hash_path_runs_on(HashPath::kAvx2, cpu)) l.all[l.count++] = kAvx2;
    if (hash_path_runs_on(HashPath::kAvx512, cpu)) l.all[l.count++] = kAvx512;
    return l;
  }();
  return {list.all.data(), list.count};
}

XmssChainsFn xmss_chains() noexcept {
  if (!cpu_features().sha_ni) return nullptr;
  // The same choice as sha256-hw's hash_many (sha256_hw.cpp): the lanes where AVX-512 wins, else
  // SHA-NI (AVX2's 8 lanes lost to SHA-NI on every CPU measured). With SHA-NI, σ0 by sha256msg1 on
  // AMD: on Zen 4 (klms-path-bench, XMSS chains) 115 against 140 ns per chain step in software; on
  // Intel the LMS kernels measured software σ0 faster (sha256_shani_rounds.h), not re-measured here.
  if (chosen_path(PathSlot::kSha256Many) == HashPath::kAvx512) return kAvx512.run;
  return cpu_features().vendor == CpuVendor::kAmd ? kShaNiMsg1.run : kShaNi.run;
}

}  // namespace klms::hashes::sha256
