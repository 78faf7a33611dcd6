// Which code path each multi-path hash backend runs, chosen once per process from a table keyed on
// what the CPU is (vendor, family, features) and filled from measurements (cpu_paths.cpp). The
// backends read chosen_path() when they are built; nothing on the hash path asks again.
//
// klms-path-bench times every path of every backend on the CPU at hand next to the chosen one, so
// anyone can check (or extend) the table on a new CPU.
#pragma once

#include <cstdint>
#include <string_view>

#include "hashes/cpu_features.h"

namespace klms::hashes {

// A code path. Not every backend has every path (see kSlotPaths in cpu_paths.cpp).
enum class HashPath : std::uint8_t {
  kPortable,  // plain C++
  kSse2,      // SSE2 + SSSE3
  kAvx2,      // AVX2 (SHA-256: 8 lanes; Keccak: 4 states; Tandem-DM: 8 lanes; LSH: 8 lanes)
  kAvx512,    // AVX-512 F+VL (SHA-256 and Tandem-DM: 16 lanes; Keccak: 8 states; LSH: 16 lanes)
  kShaNi,     // the SHA extensions (4 messages interleaved)
  kGfniAvx2,  // GFNI + AVX2 (ARIA's S-boxes as affine maps)
  kAvx2MessageLanes,  // AVX2, LSH-256 hash_many with one message per 128-bit lane (4 at once)
};

// The backends (and digest families) with more than one path.
enum class PathSlot : std::uint8_t {
  kSha256Many,    // sha256-hw hash_many (hash_one is SHA-NI either way)
  kLsh256,        // lsh256-simd and the LSH-256 digests: every function
  kLsh512,        // the LSH-512 digests
  kShake256Many,  // shake256 hash_many
  kTdmChamMany,   // tdm-cham hash_many
  kTdmLeaMany,    // tdm-lea hash_many
  kTdmAriaMany,   // tdm-aria hash_many
};
inline constexpr PathSlot kAllPathSlots[] = {PathSlot::kSha256Many,   PathSlot::kLsh256,      PathSlot::kLsh512,
                                             PathSlot::kShake256Many, PathSlot::kTdmChamMany, PathSlot::kTdmLeaMany,
                                             PathSlot::kTdmAriaMany};

std::string_view hash_path_name(HashPath path) noexcept;
std::string_view path_slot_name(PathSlot slot) noexcept;

// Whether a CPU with these features can run the path at all.
bool hash_path_runs_on(HashPath path, const CpuFeatures& cpu) noexcept;

// The table row a CPU falls in ("amd-zen4", "intel-avx512", "generic").
std::string_view cpu_profile_name(const CpuFeatures& cpu) noexcept;
// The path the table prefers for this CPU: the first of the row's list the CPU can run (the last
// entry of every list runs everywhere). Pure: tests call it with made-up CPUs.
HashPath choose_path(PathSlot slot, const CpuFeatures& cpu) noexcept;

// For this process's CPU (cpu_features()), computed on first call and kept.
HashPath chosen_path(PathSlot slot) noexcept;
std::string_view chosen_cpu_profile() noexcept;

}  // namespace klms::hashes
