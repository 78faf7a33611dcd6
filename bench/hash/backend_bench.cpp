// Every backend of the table on the inputs LMS actually hashes: the 55-byte (n = 32) and 47-byte
// (n = 24) one-shot I || rest, through hash_one (the engine's path, I absorbed once) and through
// digest (plain one-shot); 16 KiB (the long-message throughput that hash-level comparisons usually
// quote); and hash_many at 8, 16 and 67 messages (67 = the chains of one W4 signature).
#include "bench/hash/backend_bench.h"

#include <string>
#include <vector>

#include "bench/hash/hash_bench_util.h"
#include "hashes/backend.h"

namespace klms::bench::hash {
namespace {

using hashes::Backend;
using hashes::PrefixState;

// The chain step: rest = u32 q || u16 i || u8 j || tmp, hashed in place, so each iteration waits
// for the previous one (latency, as in a Winternitz chain).
void hash_one_chain(benchmark::State& state, const Backend* b, std::size_t total_len) {
  const std::size_t rest_len = total_len - kIdentifierBytes;
  const auto identifier = pattern(kIdentifierBytes, 7);
  PrefixState prefix;
  b->init_prefix(prefix, identifier.data());
  auto rest = pattern(kTmpOffset + 32, 3);  // room for the 32-byte output at +7 either way
  std::uint8_t j = 0;
  for (auto _ : state) {
    rest[kTmpOffset - 1] = j++;
    b->hash_one(prefix, rest.data(), rest_len, rest.data() + kTmpOffset);
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, static_cast<double>(total_len));
}

// Plain one-shot H(in), no saved prefix; the output feeds the next input.
void digest_one(benchmark::State& state, const Backend* b, std::size_t len) {
  auto in = pattern(len, 9);
  std::uint8_t out[32];
  for (auto _ : state) {
    b->digest(in.data(), len, out);
    in[0] = out[0];
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, static_cast<double>(len));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * len));
}

// `count` independent chains advanced one step per iteration, in place, like run_chains() does.
void hash_many_chains(benchmark::State& state, const Backend* b, std::size_t total_len, std::size_t count) {
  const std::size_t rest_len = total_len - kIdentifierBytes;
  const auto identifier = pattern(kIdentifierBytes, 7);
  PrefixState prefix;
  b->init_prefix(prefix, identifier.data());
  ChainInputs inputs(count);
  std::uint8_t j = 0;
  for (auto _ : state) {
    inputs.set_step(j++);
    b->hash_many(prefix, inputs.rests.data(), rest_len, inputs.outs.data(), count);
    benchmark::ClobberMemory();
  }
  set_per_message(state, static_cast<double>(count), static_cast<double>(total_len));
}

}  // namespace

void register_backend_benchmarks() {
  for (const Backend* b : hashes::available_backends()) {
    const std::string base = "backend/" + std::string(b->name) + "/";
    for (std::size_t len : {55u, 47u}) {
      add(base + "hash_one/" + std::to_string(len), hash_one_chain, b, len);
      add(base + "digest/" + std::to_string(len), digest_one, b, len);
    }
    add(base + "digest/" + std::to_string(kLongMessage), digest_one, b, kLongMessage);
    for (std::size_t count : {8u, 16u, 67u}) {
      add(base + "hash_many/55/" + std::to_string(count), hash_many_chains, b, 55, count);
    }
    add(base + "hash_many/47/16", hash_many_chains, b, 47, 16);
  }
}

}  // namespace klms::bench::hash
