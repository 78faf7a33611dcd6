// Inputs shared by the SHA-256 / SHAKE256 micro-benchmarks.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "hashes/backend.h"

namespace klms::bench::sha {

// The LMS hot inputs: I || u32 q || u16 i || u8 j || tmp is 55 bytes for n = 32, 47 for n = 24,
// so the part after I is 39 or 31 bytes and tmp starts 7 bytes into it.
inline constexpr std::size_t kChainRest32 = 39;
inline constexpr std::size_t kChainRest24 = 31;
using bench::add;
using bench::kTmpOffset;
using bench::pattern;
using bench::set_per_message;

// One LMS chain of `steps` hashes, each feeding the next (so this measures latency, as LMS does).
inline void chain_steps(const hashes::Backend& b, const hashes::PrefixState& prefix, std::uint8_t* rest,
                        std::size_t rest_len, int steps) {
  for (int j = 0; j < steps; ++j) {
    rest[kTmpOffset - 1] = static_cast<std::uint8_t>(j);
    b.hash_one(prefix, rest, rest_len, rest + kTmpOffset);  // n = 24 uses the first 24 bytes
  }
}

}  // namespace klms::bench::sha
