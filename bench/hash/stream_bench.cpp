// The LMS message hash of a long message, as `openssl pkeyutl -verify -rawin` of a file makes it:
// H(I || u32 q || u16 D_MESG || C || message) through the backend's stream (stream_init absorbs
// I, then 38 bytes, so the message is never block-aligned), 1 MiB fed in 2 KiB updates (what the
// 3.0 CLI hands to EVP_DigestVerifyUpdate) and in one update (the buffered message at final);
// next to OpenSSL's SHA256_Init/Update/Final of the same bytes in the same pieces (8 KiB: what
// `openssl dgst` reads at a time). Reported per byte; the 1 MiB is out of L1/L2 like a real file.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <string>

#include "bench/hash/backend_bench.h"
#include "bench/hash/hash_bench_util.h"
#include "hashes/backend.h"

namespace klms::bench::hash {
namespace {

constexpr std::size_t kStreamMessage = std::size_t{1} << 20;
constexpr std::size_t kMessagePrefix = 38;  // u32 q || u16 D_MESG || C (n = 32)

void backend_stream(benchmark::State& state, const hashes::Backend* b, std::size_t piece) {
  const auto identifier = pattern(kIdentifierBytes, 7);
  const auto head = pattern(kMessagePrefix, 5);
  auto message = pattern(kStreamMessage, 9);
  hashes::PrefixState prefix;
  b->init_prefix(prefix, identifier.data());
  hashes::StreamState s;
  std::uint8_t out[32];
  for (auto _ : state) {
    b->stream_init(s, prefix);
    b->stream_update(s, head.data(), head.size());
    for (std::size_t at = 0; at < kStreamMessage; at += piece) b->stream_update(s, message.data() + at, piece);
    b->stream_final(s, out);
    message[0] = out[0];
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, static_cast<double>(kStreamMessage));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kStreamMessage));
}

void openssl_stream(benchmark::State& state, std::size_t piece) {
  const auto head = pattern(kIdentifierBytes + kMessagePrefix, 5);
  auto message = pattern(kStreamMessage, 9);
  std::uint8_t out[32];
  for (auto _ : state) {
    SHA256_CTX ctx;
    SHA256_Init(&ctx);
    SHA256_Update(&ctx, head.data(), head.size());
    for (std::size_t at = 0; at < kStreamMessage; at += piece) SHA256_Update(&ctx, message.data() + at, piece);
    SHA256_Final(out, &ctx);
    message[0] = out[0];
    benchmark::ClobberMemory();
  }
  set_per_message(state, 1, static_cast<double>(kStreamMessage));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kStreamMessage));
}

}  // namespace

void register_stream_benchmarks() {
  for (std::size_t piece : {std::size_t{2048}, std::size_t{8192}, kStreamMessage}) {
    const std::string suffix = "/1MiB/update-" + std::to_string(piece);
    for (const hashes::Backend* b : hashes::available_backends()) {
      if (b->family != hashes::HashFamily::kSha256) continue;
      add("stream/" + std::string(b->name) + suffix, backend_stream, b, piece);
    }
    add("stream/openssl-SHA256_Update" + suffix, openssl_stream, piece);
  }
}

}  // namespace klms::bench::hash
