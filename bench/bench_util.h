// What every Google Benchmark program of bench/ shares: the LMS chain-input layout, deterministic
// inputs, per-message counters, registration with a "min" statistic, and a set of chain inputs for
// many-message hashing.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace klms::bench {

// I || u32 q || u16 i || u8 j || tmp: 55 bytes for n = 32 and 47 for n = 24. The part after I is
// what a backend hashes; tmp starts 7 bytes into it, so the chain step hashes in place.
inline constexpr std::size_t kIdentifierBytes = 16;
inline constexpr std::size_t kTmpOffset = 7;

inline std::vector<std::uint8_t> pattern(std::size_t len, std::uint8_t seed = 1) {
  std::vector<std::uint8_t> v(len);
  for (std::size_t i = 0; i < len; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 37 + (i >> 8));
  return v;
}

// `count` chain inputs (the part after I) in one buffer, each hashed in place: rests[k] is read,
// outs[k] (its tmp) is written.
struct ChainInputs {
  static constexpr std::size_t kStride = 48;  // 7 + 32 bytes, rounded up
  std::vector<std::uint8_t> buffer;
  std::vector<const std::uint8_t*> rests;
  std::vector<std::uint8_t*> outs;

  explicit ChainInputs(std::size_t count) : buffer(pattern(count * kStride, 5)), rests(count), outs(count) {
    for (std::size_t k = 0; k < count; ++k) {
      rests[k] = buffer.data() + k * kStride;
      outs[k] = buffer.data() + k * kStride + kTmpOffset;
    }
  }
  // Sets the chain position byte j of every input (so consecutive calls hash different inputs).
  void set_step(std::uint8_t j) noexcept {
    for (std::size_t k = 0; k < rests.size(); ++k) buffer[k * kStride + kTmpOffset - 1] = j;
  }
};

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

}  // namespace klms::bench
