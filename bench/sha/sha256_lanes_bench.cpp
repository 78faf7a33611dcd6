// Multi-buffer SHA-256 (AVX-512 16 lanes, AVX2 8 lanes) against SHA-NI's interleaved hash_many, on
// the LMS layout: messages 48 bytes apart (lmots.h's kChainStride) or, when longer, at the next
// 16-byte step, hashed in place with the output at rest + 7 as the chain step does. What chose the
// sha256-hw backend's hash_many (sha256_hw.cpp) and the tail policy (Ops::kPadFrom).
//
//   klms-sha-bench --benchmark_filter='^sha256-lanes/' --benchmark_repetitions=9
#include <string>

#include "bench/sha/sha_bench_inputs.h"
#include "hashes/cpu_features.h"
#include "hashes/families.h"
#include "hashes/sha2/sha256_lanes.h"
#include "hashes/sha2/sha256_shani.h"

namespace klms::bench::sha {
namespace {

using hashes::sha256::lanes::Tail;

enum class Impl { kShaNi, kAvx2, kAvx512, kBackend };

const char* impl_name(Impl impl) {
  switch (impl) {
    case Impl::kShaNi: return "sha-ni-x4";
    case Impl::kAvx2: return "avx2-x8";
    case Impl::kAvx512: return "avx512-x16";
    default: return "sha256-hw";
  }
}

const char* tail_name(Tail tail) {
  switch (tail) {
    case Tail::kPadLanes: return "pad";
    case Tail::kShaNi: return "shani-tail";
    default: return "auto";
  }
}

bool runs_here(Impl impl) {
  const hashes::CpuFeatures& f = hashes::cpu_features();
  if (!f.sha_ni) return false;  // every variant falls back on (or compares with) SHA-NI
  if (impl == Impl::kAvx2) return f.avx2;
  if (impl == Impl::kAvx512) return f.avx512f && f.avx512vl;
  return true;
}

// Compressions per message: what "ns per block" divides by.
std::size_t blocks_of(std::size_t rest_len) { return (hashes::kIdentifierBytes + rest_len + 8) / 64 + 1; }

void lanes_many(benchmark::State& state, Impl impl, Tail tail, std::size_t rest_len, std::size_t count) {
  if (!runs_here(impl)) {
    state.SkipWithError("CPU lacks the instructions");
    return;
  }
  static const hashes::Backend hw = hashes::sha256_hw_backend();
  hashes::PrefixState prefix;
  hw.init_prefix(prefix, pattern(16).data());
  const std::size_t stride = std::max<std::size_t>(48, (rest_len + 15) / 16 * 16);
  alignas(64) static std::uint8_t arena[536 * 2160 + 64];  // the largest case: 536 messages of 2150 bytes
  std::vector<const std::uint8_t*> rests(count);
  std::vector<std::uint8_t*> outs(count);
  for (std::size_t k = 0; k < count; ++k) {
    std::uint8_t* buf = arena + k * stride;
    const auto bytes = pattern(stride, static_cast<std::uint8_t>(k));
    std::copy(bytes.begin(), bytes.end(), buf);
    rests[k] = buf;
    outs[k] = buf + (rest_len >= 39 ? 7 : 0);  // the chain step's in-place layout
  }
  for (auto _ : state) {
    switch (impl) {
      case Impl::kShaNi: hashes::sha256::shani::hash_many(prefix, rests.data(), rest_len, outs.data(), count); break;
      case Impl::kAvx2:
        hashes::sha256::lanes::hash_many_avx2_with(tail, prefix, rests.data(), rest_len, outs.data(), count);
        break;
      case Impl::kAvx512:
        hashes::sha256::lanes::hash_many_avx512_with(tail, prefix, rests.data(), rest_len, outs.data(), count);
        break;
      case Impl::kBackend: hw.hash_many(prefix, rests.data(), rest_len, outs.data(), count); break;
    }
    benchmark::ClobberMemory();
  }
  set_per_message(state, static_cast<double>(count), static_cast<double>(16 + rest_len));
  state.counters["ns/block"] = benchmark::Counter(static_cast<double>(count * blocks_of(rest_len)),
                                                  benchmark::Counter::kIsIterationInvariantRate |
                                                      benchmark::Counter::kInvert);
}

std::string label(Impl impl, Tail tail, std::size_t rest_len, std::size_t count) {
  std::string name = std::string("sha256-lanes/") + impl_name(impl);
  if (impl == Impl::kAvx2 || impl == Impl::kAvx512) name += std::string("-") + tail_name(tail);
  return name + "/" + std::to_string(16 + rest_len) + "B/count:" + std::to_string(count);
}

[[maybe_unused]] const bool kRegistered = [] {
  // The comparison: one-block LMS inputs and two multi-block lengths, at the counts the engine uses
  // (536 = 8 leaves x 67 chains of W4).
  for (std::size_t rest : {std::size_t{39}, std::size_t{38}, std::size_t{31}, std::size_t{70}, std::size_t{2150}}) {
    for (std::size_t count : {std::size_t{8}, std::size_t{16}, std::size_t{67}, std::size_t{536}}) {
      if (rest == 2150 && count == 536) continue;  // 1.2 MB of messages: measures the cache, not the hash
      add(label(Impl::kShaNi, Tail::kAuto, rest, count), lanes_many, Impl::kShaNi, Tail::kAuto, rest, count);
      add(label(Impl::kAvx2, Tail::kAuto, rest, count), lanes_many, Impl::kAvx2, Tail::kAuto, rest, count);
      for (Tail tail : {Tail::kAuto, Tail::kPadLanes}) {
        add(label(Impl::kAvx512, tail, rest, count), lanes_many, Impl::kAvx512, tail, rest, count);
      }
      add(label(Impl::kBackend, Tail::kAuto, rest, count), lanes_many, Impl::kBackend, Tail::kAuto, rest, count);
    }
  }
  // The tail policy: a remainder of r messages padded to a full group, against SHA-NI on r messages
  // (which is what Tail::kShaNi runs). Count 8 is in the comparison above.
  // 55 B has SHA-NI's own one-block path, 54 B does not.
  for (std::size_t rest : {std::size_t{39}, std::size_t{38}, std::size_t{70}}) {
    for (std::size_t count = 1; count < 16; ++count) {
      if (count != 8) add(label(Impl::kShaNi, Tail::kAuto, rest, count), lanes_many, Impl::kShaNi, Tail::kAuto, rest, count);
      if (count < 8) add(label(Impl::kAvx2, Tail::kPadLanes, rest, count), lanes_many, Impl::kAvx2, Tail::kPadLanes, rest, count);
      if (count != 8) add(label(Impl::kAvx512, Tail::kPadLanes, rest, count), lanes_many, Impl::kAvx512, Tail::kPadLanes, rest, count);
    }
  }
  return true;
}();

}  // namespace
}  // namespace klms::bench::sha
