#include "bench/study/counting_backend.h"

#include <array>
#include <atomic>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "hashes/backend_members.h"

namespace klms::bench {
namespace {

using hashes::Backend;
using hashes::PrefixState;
using hashes::StreamState;

std::atomic<const Backend*> g_real{nullptr};
std::array<std::array<std::atomic<std::uint64_t>, kMaxCountedLength + 1>, kHashPaths> g_messages{};
std::array<std::array<std::atomic<std::uint64_t>, kMaxCountedLength + 1>, kHashPaths> g_calls{};
std::array<std::array<std::atomic<std::uint64_t>, kMaxCountedLength + 1>, kHashPaths> g_ticks{};

const Backend& real() noexcept { return *g_real.load(std::memory_order_relaxed); }

// The time-stamp counter where there is one (a few ns to read), else the steady clock in ns.
std::uint64_t ticks() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

// Ticks per ns, measured once against the steady clock over 20 ms.
double ticks_per_ns() {
  static const double rate = [] {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t c0 = ticks();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(20)) {
    }
    const std::uint64_t c1 = ticks();
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    return static_cast<double>(c1 - c0) / ns;
  }();
  return rate;
}

void count(HashPath path, std::size_t total_len, std::uint64_t messages, std::uint64_t elapsed_ticks,
           std::uint64_t calls = 1) noexcept {
  const std::size_t bucket = total_len < kMaxCountedLength ? total_len : kMaxCountedLength;
  const auto p = static_cast<std::size_t>(path);
  g_messages[p][bucket].fetch_add(messages, std::memory_order_relaxed);
  g_calls[p][bucket].fetch_add(calls, std::memory_order_relaxed);
  g_ticks[p][bucket].fetch_add(elapsed_ticks, std::memory_order_relaxed);
}

// Streamed lengths, per thread, by the caller's StreamState (a thread may have a few open at once).
struct OpenStream {
  const StreamState* state = nullptr;
  std::size_t length = 0;
  std::uint64_t elapsed = 0;  // ticks inside init and update so far
};
thread_local std::array<OpenStream, 8> t_streams{};

OpenStream* find_stream(const StreamState* state) noexcept {
  for (OpenStream& s : t_streams) {
    if (s.state == state) return &s;
  }
  return nullptr;
}

void init_prefix(PrefixState& prefix, const std::uint8_t* identifier) noexcept {
  real().init_prefix(prefix, identifier);
}

void hash_one(const PrefixState& prefix, const std::uint8_t* rest, std::size_t rest_len, std::uint8_t* out) noexcept {
  const std::uint64_t start = ticks();
  real().hash_one(prefix, rest, rest_len, out);
  count(HashPath::kOne, hashes::kIdentifierBytes + rest_len, 1, ticks() - start);
}

void hash_many(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
               std::uint8_t* const* outs, std::size_t n) noexcept {
  const std::uint64_t start = ticks();
  real().hash_many(prefix, rests, rest_len, outs, n);
  count(HashPath::kMany, hashes::kIdentifierBytes + rest_len, n, ticks() - start);
}

void stream_init(StreamState& state, const PrefixState& prefix) noexcept {
  OpenStream* slot = find_stream(&state);
  if (slot == nullptr) slot = find_stream(nullptr);
  const std::uint64_t start = ticks();
  real().stream_init(state, prefix);
  if (slot != nullptr) *slot = {&state, hashes::kIdentifierBytes, ticks() - start};
}

void stream_update(StreamState& state, const std::uint8_t* data, std::size_t len) noexcept {
  const std::uint64_t start = ticks();
  real().stream_update(state, data, len);
  if (OpenStream* s = find_stream(&state)) {
    s->length += len;
    s->elapsed += ticks() - start;
  }
}

void stream_final(StreamState& state, std::uint8_t* out) noexcept {
  const std::uint64_t start = ticks();
  real().stream_final(state, out);
  if (OpenStream* s = find_stream(&state)) {
    count(HashPath::kStream, s->length, 1, s->elapsed + (ticks() - start));
    *s = {};
  }
}

// Counted as the hash_many calls it stands for, one per step over all chains (hashes/backend.h:
// the buffers end exactly as from that loop), so a backend with chain_steps and one without count
// the same key generation alike.
void chain_steps(const PrefixState& prefix, std::uint8_t* chains, std::size_t stride, std::size_t n,
                 std::size_t rest_len, unsigned from, unsigned to) noexcept {
  const std::uint64_t start = ticks();
  real().chain_steps(prefix, chains, stride, n, rest_len, from, to);
  const std::uint64_t steps = to > from ? to - from : 0;
  count(HashPath::kMany, hashes::kIdentifierBytes + rest_len, steps * n, ticks() - start, steps);
}

void digest(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept { real().digest(in, len, out); }

Backend g_counting{};

}  // namespace

const char* hash_path_name(HashPath path) noexcept {
  switch (path) {
    case HashPath::kOne: return "one";
    case HashPath::kMany: return "many";
    case HashPath::kStream: return "stream";
  }
  return "?";
}

const hashes::Backend& counting_backend(const hashes::Backend& wrapped) noexcept {
  (void)ticks_per_ns();  // calibrate now, not inside a profiled operation
  g_real.store(&wrapped);
  g_counting = wrapped;  // same id, family, name, lanes: the engine treats it as the real one
  g_counting.init_prefix = &init_prefix;
  g_counting.hash_one = &hash_one;
  g_counting.hash_many = &hash_many;
  g_counting.stream_init = &stream_init;
  g_counting.stream_update = &stream_update;
  g_counting.stream_final = &stream_final;
  g_counting.digest = &digest;
  // Null stays null: the engine then steps the chains with hash_many, which counts them.
  g_counting.chain_steps = wrapped.chain_steps != nullptr ? &chain_steps : nullptr;
  // Backend's members: id, family, name, implementation, lanes (copied) and the eight entries
  // above. An entry added to Backend must be counted here too, not forwarded uncounted.
  static_assert(hashes::kBackendMembers == 13, "hashes::Backend changed: count its new entry in counting_backend()");
  return g_counting;
}

void reset_hash_counts() noexcept {
  for (std::size_t p = 0; p < kHashPaths; ++p) {
    for (std::size_t i = 0; i <= kMaxCountedLength; ++i) {
      g_messages[p][i].store(0, std::memory_order_relaxed);
      g_calls[p][i].store(0, std::memory_order_relaxed);
      g_ticks[p][i].store(0, std::memory_order_relaxed);
    }
  }
}

std::vector<LengthCount> hash_counts() {
  const double rate = ticks_per_ns();
  std::vector<LengthCount> out;
  for (std::size_t i = 0; i <= kMaxCountedLength; ++i) {
    for (std::size_t p = 0; p < kHashPaths; ++p) {
      const std::uint64_t messages = g_messages[p][i].load(std::memory_order_relaxed);
      if (messages == 0) continue;
      out.push_back({i, static_cast<HashPath>(p), messages, g_calls[p][i].load(std::memory_order_relaxed),
                     static_cast<double>(g_ticks[p][i].load(std::memory_order_relaxed)) / rate});
    }
  }
  return out;
}

}  // namespace klms::bench
