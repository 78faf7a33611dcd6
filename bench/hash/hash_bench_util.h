// Shared pieces of klms-hash-bench: the LMS input sizes, deterministic inputs, per-message counters,
// and registration with a "min" statistic next to the median.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace klms::bench::hash {

// I || u32 q || u16 i || u8 j || tmp: 55 bytes for n = 32 and 47 for n = 24. The part after I is
// what a Backend hashes; tmp starts 7 bytes into it, so the chain step hashes in place.
inline constexpr std::size_t kIdentifierBytes = 16;
inline constexpr std::size_t kTmpOffset = 7;
inline constexpr std::size_t kLongMessage = 16 * 1024;

inline std::vector<std::uint8_t> pattern(std::size_t len, std::uint8_t seed = 1) {
  std::vector<std::uint8_t> v(len);
  for (std::size_t i = 0; i < len; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 37 + (i >> 8));
  return v;
}

// "ns/msg" and "ns/byte" columns (Google Benchmark prints inverted rates as times).
inline void set_per_message(benchmark::State& state, double messages_per_iteration, double bytes_per_message) {
  state.counters["ns/msg"] = benchmark::Counter(
      messages_per_iteration, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["ns/byte"] =
      benchmark::Counter(messages_per_iteration * bytes_per_message,
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Registers a benchmark that also reports the minimum over repetitions: on a shared machine the
// median moves with other people's load, the minimum much less.
template <class... Args>
benchmark::internal::Benchmark* add(const std::string& name, Args&&... args) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Args>(args)...)
      ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
}

}  // namespace klms::bench::hash
