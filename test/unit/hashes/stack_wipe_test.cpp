// The stack the hash backends leave behind (docs/threat-model.md "Secrets in memory"): the LMS engine
// wipes, after each operation on secret input, hash_stack_bytes(backend) of stack below its own frame
// (hashes::wipe_hash_stack). That is enough only if no hash_one or hash_many call on the secret
// lengths (7 + n: the PRF and the chain steps, and chain_steps where a backend has it), nor the
// streaming MAC of the tree cache, reaches deeper. This test measures how deep each
// backend's calls write, by painting the stack below the caller with a pattern and looking for the
// lowest byte that changed, and checks that wipe_hash_stack clears what a call left there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hashes/backend.h"
#include "hashes/lsh/lsh256.h"

namespace klms::hashes {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;  // ASan moves locals and adds redzones: depths mean nothing there
#else
constexpr bool kSanitized = false;
#endif

constexpr std::size_t kPaintBytes = 256 * 1024;
std::uintptr_t g_low = 0, g_high = 0;

// Fills kPaintBytes of stack just below the caller's frame with `pattern` and records where.
[[gnu::noinline]] void paint(std::uint8_t pattern) {
  alignas(64) std::uint8_t area[kPaintBytes];
  std::memset(area, pattern, sizeof area);
  asm volatile("" : : "r"(area) : "memory");
  g_low = reinterpret_cast<std::uintptr_t>(area);
  g_high = g_low + sizeof area;
}

// How far below the top of the painted area `call` wrote (0 if nowhere), for one pattern.
template <typename Call>
[[gnu::noinline]] std::size_t depth_with(std::uint8_t pattern, const Call& call) {
  paint(pattern);
  call();
  // No call from here until the area is read: nothing else writes below our frame.
  const volatile std::uint8_t* p = reinterpret_cast<const volatile std::uint8_t*>(g_low);
  std::size_t i = 0;
  while (i < kPaintBytes && p[i] == pattern) ++i;
  return kPaintBytes - i;
}

// Two patterns, so a call that happens to write the pattern byte itself is still measured.
template <typename Call>
std::size_t depth_of(const Call& call) {
  return std::max(depth_with(0xA5, call), depth_with(0x5A, call));
}

// After `call` left its frames below us, wipe_hash_stack(backend) from the same frame: how many bytes
// the call wrote (neither the pattern nor zero) are still there. (wipe_hash_stack's own return
// address and saved registers sit just below our frame too; they differ from what the call left.)
std::uint8_t g_snapshot[kPaintBytes];
template <typename Call>
[[gnu::noinline]] std::size_t left_after_wipe(const Backend& b, const Call& call) {
  paint(0xA5);
  call();
  const volatile std::uint8_t* p = reinterpret_cast<const volatile std::uint8_t*>(g_low);
  volatile std::uint8_t* snapshot = g_snapshot;
  for (std::size_t i = 0; i < kPaintBytes; ++i) snapshot[i] = p[i];  // no call: a volatile loop
  wipe_hash_stack(b);
  std::size_t left = 0;
  for (std::size_t i = 0; i < kPaintBytes; ++i) {
    left += (snapshot[i] != 0xA5 && snapshot[i] != 0 && p[i] == snapshot[i]) ? 1 : 0;
  }
  return left;
}

struct SecretCall {
  std::size_t rest_len;
  std::size_t count;  // 0: hash_one; kStream: stream_init, update(rest_len), update(200), final (the cache MAC)
  bool chains = false;  // chain_steps (where the backend has it) over `count` chains 48 bytes apart, steps 0..14
};
constexpr std::size_t kStream = ~std::size_t{0};
constexpr std::size_t kChainStride = 48;

std::vector<SecretCall> secret_calls() {
  std::vector<SecretCall> calls;
  for (std::size_t n : {24u, 32u}) {
    calls.push_back({7 + n, 0});
    for (std::size_t count : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 15u, 16u, 17u, 31u, 32u, 33u, 67u, 265u, 536u}) {
      calls.push_back({7 + n, count});
    }
    calls.push_back({6 + n, kStream});
    for (std::size_t count : {1u, 15u, 16u, 17u, 33u, 67u, 536u}) calls.push_back({7 + n, count, true});
  }
  return calls;
}

template <typename F>
void for_each_call(const Backend& b, F&& f) {
  static std::vector<std::uint8_t> buffers(536 * 64);
  static std::vector<const std::uint8_t*> rests(536);
  static std::vector<std::uint8_t*> outs(536);
  static PrefixState prefix;
  static StreamState stream;
  std::uint8_t id[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  b.init_prefix(prefix, id);
  for (std::size_t k = 0; k < 536; ++k) {
    rests[k] = buffers.data() + 64 * k;
    outs[k] = buffers.data() + 64 * k + 7;
  }
  for (const SecretCall& c : secret_calls()) {
    const Backend* bp = &b;
    if (c.chains && b.chain_steps == nullptr) continue;
    auto call = [bp, c] {
      if (c.chains) {
        bp->chain_steps(prefix, buffers.data(), kChainStride, c.count, c.rest_len, 0, 15);
      } else if (c.count == kStream) {
        bp->stream_init(stream, prefix);
        bp->stream_update(stream, rests[0], c.rest_len);
        bp->stream_update(stream, buffers.data() + 64, 200);
        bp->stream_final(stream, outs[1]);
      } else if (c.count == 0) {
        bp->hash_one(prefix, rests[0], c.rest_len, outs[1]);
      } else {
        bp->hash_many(prefix, rests.data(), c.rest_len, outs.data(), c.count);
      }
    };
    f(c, call);
  }
}

TEST(HashStack, EveryBackendStaysWithinItsWipedDepth) {
  if (kSanitized) GTEST_SKIP() << "stack depths are not meaningful under AddressSanitizer";
  for (const Backend* b : available_backends()) {
    std::size_t deepest = 0;
    for_each_call(*b, [&](const SecretCall& c, const auto& call) {
      const std::size_t d = depth_of(call);
      deepest = std::max(deepest, d);
      EXPECT_LE(d, hash_stack_bytes(*b)) << b->name << " (" << b->implementation << ") rest " << c.rest_len
                                         << " count " << c.count << (c.chains ? " chain_steps" : "") << " writes " << d
                                         << " bytes deep";
    });
    EXPECT_GT(deepest, 0u) << b->name << ": the measurement saw no write at all";
    std::printf("%-16s %-20s deepest %6zu bytes, wiped %6zu\n", std::string(b->name).c_str(),
                std::string(b->implementation).c_str(), deepest, hash_stack_bytes(*b));
  }
}

TEST(HashStack, WipeClearsWhatTheCallLeft) {
  if (kSanitized) GTEST_SKIP() << "stack depths are not meaningful under AddressSanitizer";
  for (const Backend* b : available_backends()) {
    for_each_call(*b, [&](const SecretCall& c, const auto& call) {
      EXPECT_EQ(left_after_wipe(*b, call), 0u)
          << b->name << " rest " << c.rest_len << " count " << c.count << ": bytes left on the stack";
    });
  }
}

// lsh256-simd is built on whichever LSH-256 implementation the path table picks for the CPU, so its
// wiped depth must hold for every one this CPU can run, not only the one chosen here: an AVX2-only
// CPU runs the message lanes (or the 8 word-sliced lanes), this Zen 4 the 16 AVX-512 lanes. The same
// secret calls, made on each implementation directly (the backend's adapters add no frame of note).
TEST(HashStack, EveryLsh256ImplementationStaysWithinTheSimdDepth) {
  if (kSanitized) GTEST_SKIP() << "stack depths are not meaningful under AddressSanitizer";
  const std::size_t bound = hash_stack_bytes(*backend(BackendId::kLsh256Simd));
  static std::vector<std::uint8_t> buffers(536 * 64);
  static std::vector<const std::uint8_t*> rests(536);
  static std::vector<std::uint8_t*> outs(536);
  for (std::size_t k = 0; k < 536; ++k) {
    rests[k] = buffers.data() + 64 * k;
    outs[k] = buffers.data() + 64 * k + 7;
  }
  static const std::uint8_t id[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  int measured = 0;
  for (LshIsa isa : kAllLshIsas) {
    const Lsh256Implementation* impl = lsh256_implementation(isa);
    if (impl == nullptr) continue;
    ++measured;
    std::size_t deepest = 0;
    for (const SecretCall& c : secret_calls()) {
      const std::size_t d = depth_of([impl, c] {
        if (c.count == kStream) {
          static Lsh256Context ctx;
          lsh256_init(ctx, 32);
          impl->update(ctx, id, 16);
          impl->update(ctx, rests[0], c.rest_len);
          impl->update(ctx, buffers.data() + 64, 200);
          impl->final(ctx, outs[1]);
        } else if (c.count == 0) {
          impl->digest(lsh256_iv(32), id, 16, rests[0], c.rest_len, outs[1], 32);
        } else {
          impl->hash_many(id, rests.data(), c.rest_len, outs.data(), c.count);
        }
      });
      deepest = std::max(deepest, d);
      EXPECT_LE(d, bound) << "lsh256 " << impl->name << " rest " << c.rest_len << " count " << c.count << " writes "
                          << d << " bytes deep";
    }
    EXPECT_GT(deepest, 0u) << impl->name << ": the measurement saw no write at all";
    std::printf("lsh256 %-10s deepest %6zu bytes, wiped %6zu (lsh256-simd)\n", std::string(impl->name).c_str(), deepest,
                bound);
  }
  EXPECT_GE(measured, 2);  // portable and at least one SIMD level on any x86-64
}

// The measurement can fail: a call that writes deeper than the wiped depth is seen as deeper.
[[gnu::noinline]] void deep_writer() {
  alignas(64) volatile std::uint8_t big[96 * 1024];
  for (std::size_t i = 0; i < sizeof big; i += 64) big[i] = 1;
}

TEST(HashStack, MeasurementSeesADeepCall) {
  if (kSanitized) GTEST_SKIP() << "stack depths are not meaningful under AddressSanitizer";
  EXPECT_GE(depth_of([] { deep_writer(); }), 90u * 1024);
  EXPECT_GT(left_after_wipe(*backend(BackendId::kSha256Portable), [] { deep_writer(); }), 0u);
}

}  // namespace
}  // namespace klms::hashes
