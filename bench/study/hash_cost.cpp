#include "bench/study/hash_cost.h"

#include <time.h>

#include <algorithm>
#include <vector>

#include "bench/study/stats.h"

namespace klms::bench {
namespace {

constexpr int kRounds = 7;
constexpr double kRoundNs = 2e6;

// This thread's CPU time: on a shared machine, time another process had the core is not ours.
double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// Runs `step` (hashing `per_step` messages) until a round is long enough; returns ns per message.
template <typename Step>
double time_round(Step step, std::size_t per_step) {
  std::size_t iterations = 0;
  const double start = thread_cpu_ns();
  double now = start;
  do {
    for (int k = 0; k < 16; ++k) step();
    iterations += 16;
    now = thread_cpu_ns();
  } while (now - start < kRoundNs);
  return (now - start) / static_cast<double>(iterations * per_step);
}

}  // namespace

double ns_per_message(const hashes::Backend& b, HashPath path, std::size_t input_bytes, std::size_t batch) {
  const std::size_t rest_len = input_bytes > hashes::kIdentifierBytes ? input_bytes - hashes::kIdentifierBytes : 0;
  const std::uint8_t identifier[hashes::kIdentifierBytes] = {7, 1, 4, 2, 8, 5, 7, 1, 4, 2, 8, 5, 7, 1, 4, 2};
  hashes::PrefixState prefix;
  b.init_prefix(prefix, identifier);
  batch = std::clamp<std::size_t>(batch, 1, 1024);
  // Room for the output 7 bytes in (the chain step writes there) whatever the length.
  const std::size_t stride = (std::max<std::size_t>(rest_len, 7 + 32) + 63) / 64 * 64;
  std::vector<std::uint8_t> buffers(stride * batch);
  for (std::size_t i = 0; i < buffers.size(); ++i) buffers[i] = static_cast<std::uint8_t>(i * 131 + 17);
  std::vector<const std::uint8_t*> rests(batch);
  std::vector<std::uint8_t*> outs(batch);
  std::uint8_t out[32];
  for (std::size_t k = 0; k < batch; ++k) {
    rests[k] = buffers.data() + k * stride;
    outs[k] = buffers.data() + k * stride + 7;
  }
  std::uint8_t* first = buffers.data();
  std::vector<double> rounds;
  for (int r = 0; r < kRounds; ++r) {
    switch (path) {
      case HashPath::kOne:
        rounds.push_back(time_round(
            [&] {
              b.hash_one(prefix, first, rest_len, out);
              if (rest_len != 0) first[rest_len - 1] ^= out[0];  // the next input waits for this output
            },
            1));
        break;
      case HashPath::kMany:
        rounds.push_back(time_round([&] { b.hash_many(prefix, rests.data(), rest_len, outs.data(), batch); }, batch));
        break;
      case HashPath::kStream: {
        hashes::StreamState state;
        rounds.push_back(time_round(
            [&] {
              b.stream_init(state, prefix);
              b.stream_update(state, first, rest_len);
              b.stream_final(state, out);
              if (rest_len != 0) first[rest_len - 1] ^= out[0];
            },
            1));
        break;
      }
    }
  }
  return summarize(rounds).median;
}

}  // namespace klms::bench
