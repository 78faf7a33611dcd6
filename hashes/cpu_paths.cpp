// The measured path table. Each row names a kind of CPU and, per backend, its paths fastest first as
// measured on that kind of CPU; chosen_path() takes the first one the CPU can run. A CPU that matches
// no measured row gets the generic row, ordered by what both measured CPUs agree on.
//
// Why a table and not a calibration at load: a calibration must time every path of seven backends
// at process start, long enough to beat the noise of a shared 2-vCPU guest (tens of microseconds per
// path at the least, against the ~0.2 ms that loading the provider now costs), and it would pick
// different paths in different processes on the same machine when other work perturbs the timing.
// The table costs nothing at load (cpu_features() is read once anyway), is the same in every
// process, and klms-path-bench re-measures it on any CPU: a row is one run of that program.
//
// Rows, with the measurements behind them (ns per 55-byte message, hash_many of 67 messages, CPU-time
// medians):
//
// amd-zen4: AMD family 0x19 with AVX-512 (Zen 4; Zen 3 is family 0x19 without AVX-512). Measured on
//   a 2-vCPU KVM guest, AMD EPYC family 25 model 17 (Zen 4, AVX-512 on 256-bit units, SHA-NI, GFNI),
//   klms-path-bench (11 interleaved repetitions) on 2026-12-01:
//     sha256-hw     avx512-x16 18.9   sha-ni 26.8   avx2-x8 42.5   portable 168
//     lsh256        avx512 32.0       avx2 66.8     sse2 119       portable 512
//     lsh512        avx512 152        avx2 166      sse2 230       portable 637 (one-shot digest of 55 B)
//     shake256      avx512-x8 83      avx2-x4 126   portable 362
//     tdm-cham      avx512 60.6       avx2 95.2     portable 387
//     tdm-lea       avx512 49.9       avx2 92.0     portable 368
//     tdm-aria      gfni-avx2 219     portable 768
//   The SHA unit here is throughput-bound (x1/x2/x4/x8 interleaving all 26-30 ns), so the 16 AVX-512
//   lanes win by 1.4x even on 256-bit units (a table that keeps SHA-NI on every AMD CPU, as one
//   measured on Intel only would, loses that).
// intel-avx512: Intel with AVX-512 F+VL. Measured on a 2-vCPU KVM guest,
//   Intel Xeon of the Sapphire Rapids generation (docs/performance.md, docs/study/report.md, sha256_hw.cpp):
//     sha256-hw     avx512-x16 19.9-21.2   sha-ni-x4 33.9   avx2-x8 52.5
//     lsh256        avx512 34.7-38.6       avx2 75.4-80.6
//     tdm-*, shake256: avx512, chosen by the per-path benchmarks on that guest (klms-blockhash-bench,
//     klms-sha-bench).
// generic: anything else (Intel or AMD without AVX-512, Zen 5, other vendors). Not measured; ordered
//   by what both measured CPUs agree on: AVX-512 lanes where present, else SHA-NI over AVX2 lanes
//   for SHA-256 (AVX2 x8 lost to SHA-NI by 1.6x on both), else the widest vector code. For LSH-256
//   on AVX2 that is the message lanes (avx2-msg, 4 messages) ahead of the 8 word-sliced lanes: on
//   Zen 4, the only CPU at hand, the same AVX2 code measured (klms-path-bench, 2026-12-01, CPU
//   medians) avx2-msg 42.5 vs avx2 46 ns per message on a quiet core and 52 vs 61 under load; not
//   measured on an Intel CPU, where 256-bit shuffles have one port (the message lanes issue ~4.3
//   shuffles per message and step, the word-sliced lanes under 1; by instruction counts the two
//   come out about even there) — re-measure with klms-path-bench on an Intel CPU.
#include "hashes/cpu_paths.h"

#include <span>

namespace klms::hashes {
namespace {

using P = HashPath;

struct Preferences {
  // Indexed by PathSlot; each list ends with a path that runs everywhere.
  std::span<const HashPath> slots[7];
};

constexpr HashPath kSha256Lanes[] = {P::kAvx512, P::kShaNi, P::kPortable};
// LSH-256: below AVX-512 the message lanes (4 at once) beat the 8 word-sliced lanes.
constexpr HashPath kLsh256Widest[] = {P::kAvx512, P::kAvx2MessageLanes, P::kAvx2, P::kSse2, P::kPortable};
constexpr HashPath kLshWidest[] = {P::kAvx512, P::kAvx2, P::kSse2, P::kPortable};
constexpr HashPath kKeccakWidest[] = {P::kAvx512, P::kAvx2, P::kPortable};
constexpr HashPath kTdmWidest[] = {P::kAvx512, P::kAvx2, P::kPortable};
constexpr HashPath kAriaGfni[] = {P::kGfniAvx2, P::kPortable};

constexpr Preferences kAmdZen4 = {{kSha256Lanes, kLsh256Widest, kLshWidest, kKeccakWidest, kTdmWidest, kTdmWidest, kAriaGfni}};
constexpr Preferences kIntelAvx512 = {
    {kSha256Lanes, kLsh256Widest, kLshWidest, kKeccakWidest, kTdmWidest, kTdmWidest, kAriaGfni}};
constexpr Preferences kGeneric = {{kSha256Lanes, kLsh256Widest, kLshWidest, kKeccakWidest, kTdmWidest, kTdmWidest, kAriaGfni}};

struct Row {
  std::string_view name;
  bool (*matches)(const CpuFeatures&) noexcept;
  const Preferences* preferences;
};

constexpr Row kRows[] = {
    {"amd-zen4",
     [](const CpuFeatures& c) noexcept { return c.vendor == CpuVendor::kAmd && c.family == 0x19 && c.avx512f; },
     &kAmdZen4},
    {"intel-avx512",
     [](const CpuFeatures& c) noexcept { return c.vendor == CpuVendor::kIntel && c.avx512f && c.avx512vl; },
     &kIntelAvx512},
    {"generic", [](const CpuFeatures&) noexcept { return true; }, &kGeneric},
};

const Row& row_for(const CpuFeatures& cpu) noexcept {
  for (const Row& row : kRows) {
    if (row.matches(cpu)) return row;
  }
  return kRows[std::size(kRows) - 1];
}

struct Chosen {
  HashPath paths[std::size(kAllPathSlots)];
  std::string_view profile;
};

const Chosen& chosen() noexcept {
  static const Chosen kChosen = [] {
    Chosen c{};
    const CpuFeatures& cpu = cpu_features();
    for (PathSlot slot : kAllPathSlots) c.paths[static_cast<std::size_t>(slot)] = choose_path(slot, cpu);
    c.profile = row_for(cpu).name;
    return c;
  }();
  return kChosen;
}

}  // namespace

std::string_view hash_path_name(HashPath path) noexcept {
  switch (path) {
    case P::kPortable: return "portable";
    case P::kSse2: return "sse2";
    case P::kAvx2: return "avx2";
    case P::kAvx512: return "avx512";
    case P::kShaNi: return "sha-ni";
    case P::kGfniAvx2: return "gfni-avx2";
    case P::kAvx2MessageLanes: return "avx2-msg";
  }
  return "unknown";
}

std::string_view path_slot_name(PathSlot slot) noexcept {
  switch (slot) {
    case PathSlot::kSha256Many: return "sha256-hw hash_many";
    case PathSlot::kLsh256: return "lsh256";
    case PathSlot::kLsh512: return "lsh512";
    case PathSlot::kShake256Many: return "shake256 hash_many";
    case PathSlot::kTdmChamMany: return "tdm-cham hash_many";
    case PathSlot::kTdmLeaMany: return "tdm-lea hash_many";
    case PathSlot::kTdmAriaMany: return "tdm-aria hash_many";
  }
  return "unknown";
}

bool hash_path_runs_on(HashPath path, const CpuFeatures& cpu) noexcept {
  switch (path) {
    case P::kPortable: return true;
    case P::kSse2: return cpu.sse2 && cpu.ssse3;
    case P::kAvx2:
    case P::kAvx2MessageLanes: return cpu.avx2;
    case P::kAvx512: return cpu.avx2 && cpu.avx512f && cpu.avx512vl;
    case P::kShaNi: return cpu.sha_ni;
    case P::kGfniAvx2: return cpu.gfni && cpu.avx2;
  }
  return false;
}

std::string_view cpu_profile_name(const CpuFeatures& cpu) noexcept { return row_for(cpu).name; }

HashPath choose_path(PathSlot slot, const CpuFeatures& cpu) noexcept {
  const auto& list = row_for(cpu).preferences->slots[static_cast<std::size_t>(slot)];
  for (HashPath path : list) {
    // The SHA-256 lanes' tail goes to SHA-NI: the AVX-512 lane path needs both.
    if (slot == PathSlot::kSha256Many && path == P::kAvx512 && !cpu.sha_ni) continue;
    if (hash_path_runs_on(path, cpu)) return path;
  }
  return P::kPortable;
}

HashPath chosen_path(PathSlot slot) noexcept { return chosen().paths[static_cast<std::size_t>(slot)]; }
std::string_view chosen_cpu_profile() noexcept { return chosen().profile; }

}  // namespace klms::hashes
