// klms-path-bench: every code path of every multi-path hash backend on this CPU, timed interleaved in
// one run, next to the path the table in hashes/cpu_paths.cpp chose. It is how a row of that table
// is measured, and how anyone checks the choice on the CPU at hand:
//
//   klms-path-bench [--reps 11] [--ms 2] [--count 67]
//
// Each sample is --ms milliseconds of thread CPU time on one path (hash_many of --count 55-byte
// messages; the LSH-512 digests one-shot on 55 bytes); samples rotate over every path of every
// backend --reps times, so all paths see the same machine load; the figure is the median. A table
// of its own times LM-OTS key generation's chains: a hash_many call per step against
// Backend::chain_steps. The verdict line says whether each chosen path is within 5 % of the fastest
// of the same run. Exit status 0 either way (the machine may be noisy); 2 on bad arguments.
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hashes/backend.h"
#include "hashes/cpu_features.h"
#include "hashes/cpu_paths.h"
#include "hashes/lsh/lsh256.h"
#include "hashes/lsh/lsh512.h"
#include "hashes/sha2/sha256_lanes.h"
#include "hashes/sha2/sha256_prefix.h"
#include "hashes/sha2/sha256_shani.h"
#include "hashes/sha2/sha256_xmss_chains.h"
#include "hashes/keccak/shake256.h"
#include "hashes/tdm/tdm_lanes.h"

namespace {

using namespace klms::hashes;

double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// `count` messages of I (16 bytes, in the prefix) || 39 bytes, each output over its own input.
struct Messages {
  explicit Messages(std::size_t count) : buffers(count, std::vector<std::uint8_t>(64)) {
    for (std::size_t k = 0; k < count; ++k) {
      for (std::size_t i = 0; i < 64; ++i) buffers[k][i] = static_cast<std::uint8_t>(k * 31 + i * 7 + 1);
      rests.push_back(buffers[k].data());
      outs.push_back(buffers[k].data());
    }
  }
  std::vector<std::vector<std::uint8_t>> buffers;
  std::vector<const std::uint8_t*> rests;
  std::vector<std::uint8_t*> outs;
};
constexpr std::size_t kRestLen = 39;
constexpr std::uint8_t kIdentifier[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

struct Path {
  HashPath path;
  std::string label;
  std::function<void()> run;  // one call
  double messages_per_call;
  std::size_t calls_per_sample = 1;
  std::vector<double> samples;  // ns per message
};

struct Slot {
  PathSlot slot;
  std::vector<Path> paths;
  const char* title = nullptr;  // a table of its own, no verdict: the chain rows
};

using Many = void (*)(const PrefixState&, const std::uint8_t* const*, std::size_t, std::uint8_t* const*,
                      std::size_t) noexcept;

// What the shake256 backend's portable hash_many does (that one is file-local).
void shake256_many_portable(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                            std::uint8_t* const* outs, std::size_t count) noexcept {
  for (std::size_t k = 0; k < count; ++k) shake256::hash_one(prefix, rests[k], rest_len, outs[k]);
}

Path many_path(HashPath path, std::string label, Many many, void (*init)(PrefixState&, const std::uint8_t*) noexcept,
               std::size_t count) {
  auto messages = std::make_shared<Messages>(count);
  auto prefix = std::make_shared<PrefixState>();
  init(*prefix, kIdentifier);
  return Path{path, std::move(label),
              [=] { many(*prefix, messages->rests.data(), kRestLen, messages->outs.data(), count); },
              static_cast<double>(count)};
}

std::vector<Slot> every_path(std::size_t count) {
  const CpuFeatures& cpu = cpu_features();
  auto runs = [&](HashPath p) { return hash_path_runs_on(p, cpu); };
  std::vector<Slot> slots;

  Slot sha{PathSlot::kSha256Many, {}};
  const Backend& sha_portable = *backend(BackendId::kSha256Portable);
  sha.paths.push_back(many_path(HashPath::kPortable, "portable", sha_portable.hash_many, sha_portable.init_prefix, count));
  if (cpu.sha_ni) {
    sha.paths.push_back(many_path(HashPath::kShaNi, "sha-ni-x4", sha256::shani::hash_many, sha256::init_prefix, count));
    if (runs(HashPath::kAvx2))
      sha.paths.push_back(
          many_path(HashPath::kAvx2, "avx2-x8", sha256::lanes::hash_many_avx2, sha256::init_prefix, count));
    if (runs(HashPath::kAvx512))
      sha.paths.push_back(
          many_path(HashPath::kAvx512, "avx512-x16", sha256::lanes::hash_many_avx512, sha256::init_prefix, count));
  }
  slots.push_back(std::move(sha));

  Slot lsh{PathSlot::kLsh256, {}};
  for (LshIsa isa : kAllLshIsas) {
    const Lsh256Implementation* impl = lsh256_implementation(isa);
    if (impl == nullptr) continue;
    auto messages = std::make_shared<Messages>(count);
    const HashPath path = isa == LshIsa::kSse2 ? HashPath::kSse2
                          : isa == LshIsa::kAvx2 ? HashPath::kAvx2
                          : isa == LshIsa::kAvx2MessageLanes ? HashPath::kAvx2MessageLanes
                          : isa == LshIsa::kAvx512 ? HashPath::kAvx512
                                                   : HashPath::kPortable;
    lsh.paths.push_back(Path{path, std::string(impl->name) + "-x" + std::to_string(impl->lanes),
                             [=] { impl->hash_many(kIdentifier, messages->rests.data(), kRestLen, messages->outs.data(), count); },
                             static_cast<double>(count)});
  }
  slots.push_back(std::move(lsh));

  Slot lsh512{PathSlot::kLsh512, {}};
  for (LshIsa isa : kAllLshIsas) {
    if (isa == LshIsa::kAvx2MessageLanes) continue;  // an LSH-256 hash_many layout; LSH-512 runs its AVX2 code
    const Lsh512Implementation* impl = lsh512_implementation(isa);
    if (impl == nullptr) continue;
    auto buffer = std::make_shared<std::vector<std::uint8_t>>(64, 0x5a);
    const HashPath path = isa == LshIsa::kSse2 ? HashPath::kSse2
                          : isa == LshIsa::kAvx2 ? HashPath::kAvx2
                          : isa == LshIsa::kAvx512 ? HashPath::kAvx512
                                                   : HashPath::kPortable;
    lsh512.paths.push_back(Path{path, std::string(impl->name) + " (digest of 55 B)",
                                [=] { impl->digest(lsh512_iv(64), buffer->data(), 55, buffer->data(), 64); }, 1.0});
  }
  slots.push_back(std::move(lsh512));

  Slot shake{PathSlot::kShake256Many, {}};
  const Backend& shake_backend = *backend(BackendId::kShake256);
  shake.paths.push_back(
      many_path(HashPath::kPortable, "portable", shake256_many_portable, shake_backend.init_prefix, count));
  if (runs(HashPath::kAvx2))
    shake.paths.push_back(
        many_path(HashPath::kAvx2, "avx2-x4", shake256::hash_many_x4_avx2, shake_backend.init_prefix, count));
  if (runs(HashPath::kAvx512))
    shake.paths.push_back(
        many_path(HashPath::kAvx512, "avx512-x8", shake256::hash_many_x8_avx512, shake_backend.init_prefix, count));
  slots.push_back(std::move(shake));

  struct TdmPaths {
    PathSlot slot;
    BackendId id;
    Many portable, avx2, avx512;
  };
  const TdmPaths tdms[] = {
      {PathSlot::kTdmChamMany, BackendId::kTdmCham, tdm::cham_hash_many_portable, tdm::cham_hash_many_avx2,
       tdm::cham_hash_many_avx512},
      {PathSlot::kTdmLeaMany, BackendId::kTdmLea, tdm::lea_hash_many_portable, tdm::lea_hash_many_avx2,
       tdm::lea_hash_many_avx512},
      {PathSlot::kTdmAriaMany, BackendId::kTdmAria, tdm::aria_hash_many_portable, nullptr, nullptr},
  };
  for (const TdmPaths& t : tdms) {
    Slot s{t.slot, {}};
    auto init = backend(t.id)->init_prefix;
    s.paths.push_back(many_path(HashPath::kPortable, "portable", t.portable, init, count));
    if (t.avx2 != nullptr && runs(HashPath::kAvx2)) s.paths.push_back(many_path(HashPath::kAvx2, "avx2-x8", t.avx2, init, count));
    if (t.avx512 != nullptr && runs(HashPath::kAvx512))
      s.paths.push_back(many_path(HashPath::kAvx512, "avx512-x16", t.avx512, init, count));
    if (t.slot == PathSlot::kTdmAriaMany && runs(HashPath::kGfniAvx2))
      s.paths.push_back(many_path(HashPath::kGfniAvx2, "gfni-avx2-x4", tdm::aria_hash_many_gfni_avx2, init, count));
    slots.push_back(std::move(s));
  }
  return slots;
}

// The chains of one key-generation batch: kLeafBatch = 16 W4 leaves, 16 x 67 = 1072 chains of
// u32 q || u16 i || u8 j || tmp, 48 bytes apart (lms/lmots.h), each run over steps 0..14. Per
// path: a hash_many call per step (what the engine does without Backend::chain_steps) or one
// chain_steps call. The figure is ns per chain step (one 55-byte message).
constexpr std::size_t kChainCount = 16 * 67, kChainStride = 48;
constexpr unsigned kChainTop = 15;

Path chain_path(HashPath path, std::string label, Many many) {
  auto buffers = std::make_shared<std::vector<std::uint8_t>>(kChainCount * kChainStride, 0x3c);
  auto rests = std::make_shared<std::vector<const std::uint8_t*>>();
  auto outs = std::make_shared<std::vector<std::uint8_t*>>();
  for (std::size_t c = 0; c < kChainCount; ++c) {
    rests->push_back(buffers->data() + c * kChainStride);
    outs->push_back(buffers->data() + c * kChainStride + 7);
  }
  auto prefix = std::make_shared<PrefixState>();
  sha256::init_prefix(*prefix, kIdentifier);
  return Path{path, std::move(label),
              [=] {
                for (unsigned t = 0; t < kChainTop; ++t) {
                  for (std::size_t c = 0; c < kChainCount; ++c) {
                    (*buffers)[c * kChainStride + 6] = static_cast<std::uint8_t>(t);
                  }
                  many(*prefix, rests->data(), kRestLen, outs->data(), kChainCount);
                }
              },
              static_cast<double>(kChainCount * kChainTop)};
}

using ChainSteps = void (*)(const PrefixState&, std::uint8_t*, std::size_t, std::size_t, std::size_t, unsigned,
                            unsigned) noexcept;

Path chain_steps_path(HashPath path, std::string label, ChainSteps steps) {
  auto buffers = std::make_shared<std::vector<std::uint8_t>>(kChainCount * kChainStride, 0x3c);
  auto prefix = std::make_shared<PrefixState>();
  sha256::init_prefix(*prefix, kIdentifier);
  return Path{path, std::move(label),
              [=] { steps(*prefix, buffers->data(), kChainStride, kChainCount, kRestLen, 0, kChainTop); },
              static_cast<double>(kChainCount * kChainTop)};
}

void add_chain_paths(std::vector<Slot>& slots) {
  const CpuFeatures& cpu = cpu_features();
  if (!cpu.sha_ni) return;
  Slot chains{PathSlot::kSha256Many, {}, "sha256 key-generation chains (1072 chains x steps 0..14, ns per step)"};
  chains.paths.push_back(chain_path(HashPath::kShaNi, "hash_many/step sha-ni-x4", sha256::shani::hash_many));
  if (hash_path_runs_on(HashPath::kAvx512, cpu)) {
    chains.paths.push_back(chain_path(HashPath::kAvx512, "hash_many/step avx512-x16", sha256::lanes::hash_many_avx512));
    chains.paths.push_back(
        chain_steps_path(HashPath::kAvx512, "chain_steps avx512-x16", sha256::lanes::chain_steps_avx512));
  }
  slots.push_back(std::move(chains));
}

// XMSS's WOTS+ chains with n = 32 (hashes/sha2/sha256_xmss_chains.h): the same 1072 chains (16
// leaves of 67), steps 0..14, on every kernel; ns per chain step (two PRFs and F, four compressions).
void add_xmss_chain_paths(std::vector<Slot>& slots) {
  Slot chains{PathSlot::kSha256Many, {}, "sha256 XMSS chains, n = 32 (1072 chains x steps 0..14, ns per step = 4 blocks)"};
  for (const sha256::XmssChainKernel& k : sha256::xmss_chain_kernels()) {
    const HashPath path = k.name == "avx512-x16" ? HashPath::kAvx512
                          : k.name == "avx2-x8"  ? HashPath::kAvx2
                          : k.name.starts_with("sha-ni") ? HashPath::kShaNi
                                                  : HashPath::kPortable;
    auto values = std::make_shared<std::vector<std::uint8_t>>(kChainCount * 32, 0x3c);
    auto chain_list = std::make_shared<std::vector<sha256::XmssChain>>(kChainCount);
    auto key = std::make_shared<sha256::XmssChainKey>();
    for (std::size_t i = 0; i < 8; ++i) key->prf_midstate[i] = static_cast<std::uint32_t>(0x9e3779b9u * (i + 1));
    const sha256::XmssChainsFn run = k.run;
    chains.paths.push_back(Path{path, "xmss chains " + std::string(k.name),
                                [=] {
                                  for (std::size_t c = 0; c < kChainCount; ++c) {
                                    (*chain_list)[c] = {values->data() + 32 * c, static_cast<std::uint32_t>(c / 67),
                                                        static_cast<std::uint32_t>(c % 67), 0, kChainTop};
                                  }
                                  run(*key, chain_list->data(), kChainCount);
                                },
                                static_cast<double>(kChainCount * kChainTop)});
  }
  slots.push_back(std::move(chains));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const char* vendor_name(CpuVendor v) {
  return v == CpuVendor::kIntel ? "intel" : v == CpuVendor::kAmd ? "amd" : "other";
}

std::string cpu_model_name() {
  std::FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (f == nullptr) return "?";
  char line[512];
  std::string name = "?";
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "model name", 10) == 0) {
      const char* colon = std::strchr(line, ':');
      if (colon != nullptr) name = colon + 2;
      if (!name.empty() && name.back() == '\n') name.pop_back();
      break;
    }
  }
  std::fclose(f);
  return name;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 11;
  double sample_ms = 2.0;
  std::size_t count = 67;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (a == "--ms" && i + 1 < argc) {
      sample_ms = std::atof(argv[++i]);
    } else if (a == "--count" && i + 1 < argc) {
      count = static_cast<std::size_t>(std::atol(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--reps N] [--ms MILLISECONDS] [--count MESSAGES]\n", argv[0]);
      return 2;
    }
  }
  if (reps < 1 || sample_ms <= 0 || count == 0) {
    std::fprintf(stderr, "%s: --reps, --ms and --count must be positive\n", argv[0]);
    return 2;
  }
  const CpuFeatures& cpu = cpu_features();
  std::printf("cpu: %s (vendor %s, family 0x%x, model 0x%x); path-table row: %s\n", cpu_model_name().c_str(),
              vendor_name(cpu.vendor), cpu.family, cpu.model, std::string(chosen_cpu_profile()).c_str());
  std::printf("hash_many of %zu messages of 55 bytes; %d interleaved samples of %.1f ms CPU time per path; medians\n\n",
              count, reps, sample_ms);

  std::vector<Slot> slots = every_path(count);
  add_chain_paths(slots);
  add_xmss_chain_paths(slots);
  // Calibrate: calls per sample so that one sample is about sample_ms.
  for (Slot& s : slots) {
    for (Path& p : s.paths) {
      p.run();  // warm
      std::size_t calls = 1;
      for (;;) {
        const double t0 = thread_cpu_ns();
        for (std::size_t c = 0; c < calls; ++c) p.run();
        const double dt = thread_cpu_ns() - t0;
        if (dt >= sample_ms * 1e6 / 4 || calls >= (std::size_t{1} << 30)) {
          p.calls_per_sample = std::max<std::size_t>(1, static_cast<std::size_t>(calls * sample_ms * 1e6 / std::max(dt, 1.0)));
          break;
        }
        calls *= 2;
      }
    }
  }
  for (int r = 0; r < reps; ++r) {
    for (Slot& s : slots) {
      const std::size_t n = s.paths.size();
      for (std::size_t j = 0; j < n; ++j) {
        Path& p = s.paths[(j + static_cast<std::size_t>(r)) % n];
        const double t0 = thread_cpu_ns();
        for (std::size_t c = 0; c < p.calls_per_sample; ++c) p.run();
        const double dt = thread_cpu_ns() - t0;
        p.samples.push_back(dt / (static_cast<double>(p.calls_per_sample) * p.messages_per_call));
      }
    }
  }

  std::printf("%-22s %-26s %12s %10s  %s\n", "backend", "path", "ns/message", "/fastest", "");
  bool all_within = true;
  std::string verdicts;
  for (const Slot& s : slots) {
    double fastest = 1e300;
    for (const Path& p : s.paths) fastest = std::min(fastest, median(p.samples));
    if (s.title != nullptr) {
      std::printf("\n%s\n", s.title);
      for (const Path& p : s.paths) {
        const double m = median(p.samples);
        std::printf("%-22s %-26s %12.1f %9.2fx\n", "", p.label.c_str(), m, m / fastest);
      }
      continue;
    }
    const HashPath chosen = chosen_path(s.slot);
    double chosen_ns = 0;
    bool first = true;
    for (const Path& p : s.paths) {
      const double m = median(p.samples);
      const bool is_chosen = p.path == chosen;
      if (is_chosen) chosen_ns = m;
      std::printf("%-22s %-26s %12.1f %9.2fx  %s\n", first ? std::string(path_slot_name(s.slot)).c_str() : "",
                  p.label.c_str(), m, m / fastest, is_chosen ? "<- chosen" : "");
      first = false;
    }
    const bool within = chosen_ns > 0 && chosen_ns <= fastest * 1.05;
    all_within = all_within && within;
    char line[200];
    std::snprintf(line, sizeof line, "  %s: chosen %s %.2fx of the fastest: %s\n", std::string(path_slot_name(s.slot)).c_str(),
                  std::string(hash_path_name(chosen)).c_str(), chosen_ns / fastest, within ? "within 5 %" : "NOT within 5 %");
    verdicts += line;
  }
  std::printf("\nverdict (chosen vs fastest of this run):\n%s%s\n", verdicts.c_str(),
              all_within ? "every chosen path is within 5 % of the fastest" : "some chosen path is NOT within 5 % of the fastest");
  return 0;
}
