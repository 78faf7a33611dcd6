// SHA-256 backends: the one-block LMS inputs (one-shot, chained, plain digest), hash_many at each
// interleave width, multi-block messages, and long-message throughput.
#include <string>

#include "bench/sha/sha_bench_inputs.h"
#include "hashes/families.h"
#include "hashes/sha2/sha256_portable.h"
#include "hashes/sha2/sha256_shani.h"

namespace klms::bench::sha {
namespace {

const hashes::Backend& backend_named(bool hw) {
  static const hashes::Backend portable = hashes::sha256_portable_backend();
  static const hashes::Backend shani = hashes::sha256_hw_backend();
  return hw ? shani : portable;
}

bool skip_without_shani(benchmark::State& state, bool hw) {
  if (hw && !hashes::sha256_hw_supported()) {
    state.SkipWithError("no SHA-NI on this CPU");
    return true;
  }
  return false;
}

// Independent one-shots of the same input: the throughput of back-to-back hash_one calls.
void one_shot(benchmark::State& state, bool hw, std::size_t rest_len) {
  if (skip_without_shani(state, hw)) return;
  const hashes::Backend& b = backend_named(hw);
  hashes::PrefixState prefix;
  b.init_prefix(prefix, pattern(16).data());
  auto rest = pattern(rest_len, 9);
  std::uint8_t out[32];
  for (auto _ : state) {
    b.hash_one(prefix, rest.data(), rest_len, out);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, 16 + rest_len);
}

// Each hash's output is the next one's input, as in an LM-OTS chain: latency, not throughput.
void chained(benchmark::State& state, bool hw, std::size_t rest_len) {
  if (skip_without_shani(state, hw)) return;
  const hashes::Backend& b = backend_named(hw);
  hashes::PrefixState prefix;
  b.init_prefix(prefix, pattern(16).data());
  auto rest = pattern(kTmpOffset + 32, 9);
  constexpr int kSteps = 16;
  for (auto _ : state) {
    chain_steps(b, prefix, rest.data(), rest_len, kSteps);
    benchmark::DoNotOptimize(rest.data());
  }
  set_per_message(state, kSteps, 16 + rest_len);
}

// Plain digest of the whole message (no saved prefix): shows what precomputing rounds 0-3 buys.
void plain_digest(benchmark::State& state, bool hw, std::size_t len) {
  if (skip_without_shani(state, hw)) return;
  const hashes::Backend& b = backend_named(hw);
  auto in = pattern(len, 5);
  std::uint8_t out[32];
  for (auto _ : state) {
    b.digest(in.data(), len, out);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, static_cast<double>(len));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * len));
}

// hash_many of `count` messages; width 0 is the backend's own hash_many, otherwise SHA-NI with that
// many messages interleaved.
void many(benchmark::State& state, bool hw, std::size_t width, std::size_t rest_len, std::size_t count) {
  if (skip_without_shani(state, hw)) return;
  const hashes::Backend& b = backend_named(hw);
  hashes::PrefixState prefix;
  b.init_prefix(prefix, pattern(16).data());
  std::vector<std::vector<std::uint8_t>> buffers;
  std::vector<const std::uint8_t*> rests;
  std::vector<std::uint8_t*> outs;
  for (std::size_t k = 0; k < count; ++k) buffers.push_back(pattern(std::max<std::size_t>(rest_len, 32), k));
  for (auto& buf : buffers) {
    rests.push_back(buf.data());
    outs.push_back(buf.data());  // in place, as the chain step does
  }
  for (auto _ : state) {
    if (width == 0) {
      b.hash_many(prefix, rests.data(), rest_len, outs.data(), count);
    } else {
      hashes::sha256::shani::hash_many_interleaved(width, prefix, rests.data(), rest_len, outs.data(), count);
    }
    benchmark::ClobberMemory();
  }
  set_per_message(state, static_cast<double>(count), 16 + rest_len);
}

void compress_only(benchmark::State& state, bool hw) {
  if (skip_without_shani(state, hw)) return;
  auto block = pattern(64, 3);
  std::uint32_t h[8] = {};
  for (auto _ : state) {
    if (hw) {
      hashes::sha256::shani::compress_blocks(h, block.data(), 1);
    } else {
      hashes::sha256::compress_blocks(h, block.data(), 1);
    }
    benchmark::DoNotOptimize(h);
  }
  set_per_message(state, 1, 64);
}

[[maybe_unused]] const bool kRegistered = [] {
  for (bool hw : {false, true}) {
    const std::string name = hw ? "sha256-hw" : "sha256-portable";
    for (std::size_t rest : {kChainRest32, kChainRest24}) {
      const std::string bytes = std::to_string(16 + rest);
      add(name + "/hash_one/" + bytes, one_shot, hw, rest);
      add(name + "/chained/" + bytes, chained, hw, rest);
      add(name + "/digest/" + bytes, plain_digest, hw, 16 + rest);
    }
    add(name + "/compress_block", compress_only, hw);
    add(name + "/digest/16384", plain_digest, hw, 16384);
    for (std::size_t rest : {std::size_t{39}, std::size_t{70}, std::size_t{2150}}) {
      for (std::size_t count : {1u, 4u, 8u, 67u}) {
        const std::string label = name + "/hash_many/" + std::to_string(16 + rest) + "B/count:" + std::to_string(count);
        add(label, many, hw, std::size_t{0}, rest, count);
      }
    }
  }
  // Interleave widths for SHA-NI (what chose kInterleave).
  for (std::size_t width : {1u, 2u, 3u, 4u, 8u}) {
    for (std::size_t rest : {std::size_t{39}, std::size_t{70}, std::size_t{2150}}) {
      for (std::size_t count : {8u, 67u}) {
        const std::string label = "sha256-hw/interleave:" + std::to_string(width) + "/" + std::to_string(16 + rest) +
                                  "B/count:" + std::to_string(count);
        add(label, many, true, width, rest, count);
      }
    }
  }
  return true;
}();

}  // namespace
}  // namespace klms::bench::sha
