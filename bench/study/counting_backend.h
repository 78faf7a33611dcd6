// Hash-call profiling: a Backend that counts every hash by its total input length (16 bytes of I
// plus the rest) and by the path it took (hash_one, one message of hash_many, streaming; a
// chain_steps call counts as the hash_many calls it stands for, one per step), then
// forwards to the real backend. It also adds up the time spent inside the real backend per
// (length, path), read from the time-stamp counter around each forwarded call, so a profile can
// say how long those hashes took in place (caches and branch predictors as the engine leaves them). The engine cannot tell it from the real one: same id, family and
// name. Counters are global relaxed atomics, so threaded key generation is counted too; only one
// real backend can be wrapped at a time (Backend functions are plain pointers without context).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hashes/backend.h"

namespace klms::bench {

enum class HashPath : std::uint8_t { kOne, kMany, kStream };
inline constexpr std::size_t kHashPaths = 3;
const char* hash_path_name(HashPath path) noexcept;  // "one", "many", "stream"

// Total input lengths above this are counted in this last bucket.
inline constexpr std::size_t kMaxCountedLength = 65536;

struct LengthCount {
  std::size_t input_bytes = 0;  // 16 + rest_len (or the whole streamed length)
  HashPath path = HashPath::kOne;
  std::uint64_t messages = 0;   // hashes computed
  std::uint64_t calls = 0;      // backend calls (hash_many carries several messages per call)
  double inside_ns = 0;         // time inside the real backend for these calls (streams: final only)
};

// Wraps `real` (replacing whatever was wrapped before) and returns the counting backend.
const hashes::Backend& counting_backend(const hashes::Backend& real) noexcept;
void reset_hash_counts() noexcept;
// Every (length, path) with a non-zero count, ordered by length then path.
std::vector<LengthCount> hash_counts();

}  // namespace klms::bench
