// Inputs shared by the SHA-256 / SHAKE256 micro-benchmarks.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hashes/backend.h"

namespace klms::bench::sha {

// The LMS hot inputs: I || u32 q || u16 i || u8 j || tmp is 55 bytes for n = 32, 47 for n = 24,
// so the part after I is 39 or 31 bytes and tmp starts 7 bytes into it.
inline constexpr std::size_t kChainRest32 = 39;
inline constexpr std::size_t kChainRest24 = 31;
inline constexpr std::size_t kTmpOffset = 7;

inline std::vector<std::uint8_t> pattern(std::size_t len, std::uint8_t seed = 1) {
  std::vector<std::uint8_t> v(len);
  for (std::size_t i = 0; i < len; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 37 + (i >> 8));
  return v;
}

// One LMS chain of `steps` hashes, each feeding the next (so this measures latency, as LMS does).
inline void chain_steps(const hashes::Backend& b, const hashes::PrefixState& prefix, std::uint8_t* rest,
                        std::size_t rest_len, int steps) {
  for (int j = 0; j < steps; ++j) {
    rest[kTmpOffset - 1] = static_cast<std::uint8_t>(j);
    b.hash_one(prefix, rest, rest_len, rest + kTmpOffset);  // n = 24 uses the first 24 bytes
  }
}

// Per-message and per-byte counters that Google Benchmark prints as times.
inline void set_per_message(benchmark::State& state, double messages_per_iteration, double bytes_per_message) {
  state.counters["ns/msg"] =
      benchmark::Counter(messages_per_iteration, benchmark::Counter::kIsIterationInvariantRate |
                                                            benchmark::Counter::kInvert);
  state.counters["ns/byte"] =
      benchmark::Counter(messages_per_iteration * bytes_per_message,
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Registers a benchmark that also reports the minimum over repetitions: on a shared 2-core machine
// the median moves with other people's load, the minimum much less.
template <class... Args>
benchmark::internal::Benchmark* add(const std::string& name, Args&&... args) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Args>(args)...)
      ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
}

}  // namespace klms::bench::sha
