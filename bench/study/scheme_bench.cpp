#include "bench/study/scheme_bench.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "bench/study/bench_key.h"
#include "bench/study/peak_memory.h"
#include "bench/study/stopwatch.h"
#include "bench/study/variant_backends.h"
#include "lms/private_key.h"
#include "lms/verify.h"

namespace klms::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Wall and CPU samples of one timed series.
struct Samples {
  std::vector<double> wall, cpu;
  void add(const Stopwatch& s) {
    wall.push_back(s.wall_us());
    cpu.push_back(s.cpu_us_elapsed());
  }
  bool empty() const noexcept { return wall.empty(); }
  void put(Row& r) const {
    r.time_us = summarize(wall);
    r.cpu_us = summarize(cpu);
  }
};

long long file_bytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
}

Row error_row(Row r, klms::Error e) {
  r.note = std::string("error: ") + klms::describe(e);
  return r;
}

// The message every signature signs: fixed, so runs compare, and not all zero.
klms::Bytes make_message(std::size_t bytes) {
  klms::Bytes m(bytes);
  for (std::size_t i = 0; i < bytes; ++i) m[i] = static_cast<std::uint8_t>(i * 167 + 13);
  return m;
}

// Key generation (generate_key: tree, state file with fsync, cache file) and the tree alone
// (build_tree: the hashing, no file I/O), and for HSS the first lower tree (Signer::prepare).
void measure_keygen(const Options& o, const Config& c, const std::string& dir, unsigned threads,
                    const std::function<void(const Row&)>& emit) {
  Samples whole, tree_only, lower;
  const bool want_whole = o.wants("keygen") || (c.levels > 1 && o.wants("prepare-lower"));
  const auto budget = std::chrono::duration<double>(o.keygen_budget_seconds);
  klms::Error failure = klms::Error::kOk;
  // One untimed run first for small trees (page faults, first use of the code); tall trees are long
  // enough not to need it and too long to waste.
  const unsigned warmup = c.h <= 10 ? 1 : 0;

  if (want_whole) {
    const auto series_start = Clock::now();
    for (unsigned rep = 0; rep < warmup + o.keygen_reps; ++rep) {
      const std::string state = dir + "/keygen-" + std::to_string(rep) + ".state";
      lms::KeygenRequest request = keygen_request(c, state, threads);
      Stopwatch watch(Stopwatch::Cpu::kProcess);
      auto key = lms::generate_key(request);
      watch.stop();
      if (!key) {
        failure = key.error();
        break;
      }
      if (rep >= warmup) whole.add(watch);
      if (c.levels > 1 && rep >= warmup) {
        Stopwatch p(Stopwatch::Cpu::kProcess);
        const klms::Error e = key->signer->prepare(0);
        p.stop();
        if (e == klms::Error::kOk) lower.add(p);
      }
      key = klms::Error::kInternal;  // frees the tree before the files go
      remove_key_files(state);
      if (rep >= warmup && Clock::now() - series_start > budget) break;
    }
  }
  if (o.wants("keygen-tree") && failure == klms::Error::kOk) {
    const auto series_start = Clock::now();
    for (unsigned rep = 0; rep < warmup + o.keygen_reps; ++rep) {
      const lms::KeygenRequest request = keygen_request(c, dir + "/unused.state", threads);
      lms::HssPrivateKey key;
      key.levels = request.levels;
      key.seed = request.seed;
      key.identifier = request.identifier;
      const lms::TreeKey top = lms::top_tree_key(key, c.backend);
      lms::BuildOptions build;
      build.threads = threads;
      Stopwatch watch(Stopwatch::Cpu::kProcess);
      auto tree = lms::build_tree(top, build);
      watch.stop();
      if (!tree) {
        failure = tree.error();
        break;
      }
      if (rep >= warmup) tree_only.add(watch);
      if (rep >= warmup && Clock::now() - series_start > budget) break;
    }
  }

  Row r = base_row(c, "keygen", threads, o.message_bytes);
  if (failure != klms::Error::kOk) {
    emit(error_row(r, failure));
    return;
  }
  if (o.wants("keygen")) {
    whole.put(r);
    r.note = "generate_key: tree + state file (fsync) + cache file";
    emit(r);
  }
  if (o.wants("keygen-tree")) {
    Row t = base_row(c, "keygen-tree", threads, o.message_bytes);
    tree_only.put(t);
    t.note = "build_tree only: no file I/O";
    emit(t);
  }
  if (c.levels > 1 && o.wants("prepare-lower") && !lower.empty()) {
    Row p = base_row(c, "prepare-lower", threads, o.message_bytes);
    lower.put(p);
    p.note = "first lower-level tree: build, parent signature, cache file";
    emit(p);
  }
}

struct SignedSample {
  klms::Bytes public_key, signature;
};

}  // namespace

std::vector<unsigned> thread_counts(const Options& o) {
  std::vector<unsigned> out;
  for (unsigned t : o.threads) {
    const unsigned n = effective_threads(t);
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

void measure_scheme(const Options& o, const Config& c, const std::string& dir,
                    const std::function<void(const Row&)>& emit) {
  const std::vector<unsigned> threads = thread_counts(o);
  std::vector<Row> pending;  // rows that get a peak figure from the child before they are emitted
  auto hold = [&](const Row& r) { pending.push_back(r); };
  // The study variants measure signing and verification only (their keys come from the real backend).
  const bool variant = is_study_variant(*c.backend);
  for (unsigned t : threads) {
    if (variant) break;
    if (o.wants("keygen") || o.wants("keygen-tree") || o.wants("prepare-lower")) measure_keygen(o, c, dir, t, hold);
  }

  // Signing and verification use one key, made with the largest thread count.
  const unsigned sign_threads = threads.back();
  const klms::Bytes message = make_message(o.message_bytes);
  const bool any_sign = o.wants("sign") || o.wants("sign+state") || o.wants("sign-cachefile") ||
                        o.wants("verify") || o.wants("sizes");
  std::vector<SignedSample> samples;
  if (any_sign) {
    BenchKey key(c, dir, "sign", sign_threads);
    const std::uint64_t batch = std::uint64_t{o.reps} + o.warmup + 8;
    auto sign_series = [&](const char* op, bool from_cache_file) {
      Samples times;
      Row r = base_row(c, op, 1, o.message_bytes);  // signing runs on the calling thread
      // When only verification wants signatures, a few dozen distinct ones are enough.
      const unsigned reps = o.wants(op) ? o.reps : std::min(o.reps, 64u);
      for (unsigned rep = 0; rep < o.warmup + reps; ++rep) {
        if (!key.ensure_capacity()) return emit(error_row(r, key.status()));
        auto lease = key.lease(batch);
        if (!lease) return emit(error_row(r, lease.error()));
        lms::Signer* signer = &key.signer();
        if (from_cache_file) {
          signer = key.cache_file_signer();
          if (signer == nullptr) return emit(error_row(r, klms::Error::kCacheUnusable));
          (void)signer->prepare(lease->index());  // opening the cache file is not part of a signature
        }
        Stopwatch watch;
        auto sig = signer->sign(std::move(*lease), message);
        watch.stop();
        if (!sig) return emit(error_row(r, sig.error()));
        if (rep >= o.warmup) times.add(watch);
        if (!from_cache_file && samples.size() < 64) samples.push_back({signer->public_key(), std::move(*sig)});
      }
      times.put(r);
      r.bytes = static_cast<long long>(key.signer().signature_bytes());
      r.note = from_cache_file ? "path read from the cache file (O(h) reads, checked against the root)"
                               : "tree in memory; lease from a reserved batch (no state write)";
      if (o.wants(op)) hold(r);
    };
    if (o.wants("sign") || o.wants("verify")) sign_series("sign", false);
    if (o.wants("sign-cachefile")) sign_series("sign-cachefile", true);

    if (o.wants("sign+state")) {
      BenchKey state_key(c, dir, "state", sign_threads);
      Samples times;
      Row r = base_row(c, "sign+state", 1, o.message_bytes);
      bool failed = false;
      for (unsigned rep = 0; rep < o.warmup + o.reps && !failed; ++rep) {
        if (!state_key.ensure_capacity()) {
          hold(error_row(r, state_key.status()));
          failed = true;
          break;
        }
        Stopwatch watch;
        auto lease = state_key.lease(1);  // one durable (fsync'd) state write per signature
        if (!lease) {
          hold(error_row(r, lease.error()));
          failed = true;
          break;
        }
        auto sig = state_key.signer().sign(std::move(*lease), message);
        watch.stop();
        if (!sig) {
          hold(error_row(r, sig.error()));
          failed = true;
          break;
        }
        if (rep >= o.warmup) times.add(watch);
      }
      if (!failed) {
        times.put(r);
        r.bytes = static_cast<long long>(state_key.signer().signature_bytes());
        r.note = "take(1): one fsync'd state write, then sign";
        hold(r);
      }
    }

    if (o.wants("verify") && !samples.empty()) {
      Samples times;
      Row r = base_row(c, "verify", 1, o.message_bytes);
      bool failed = false;
      for (unsigned rep = 0; rep < o.warmup + o.reps; ++rep) {
        const SignedSample& s = samples[rep % samples.size()];
        Stopwatch watch;
        const klms::Error e = lms::hss_verify(s.public_key, message, s.signature, c.backend);
        watch.stop();
        if (e != klms::Error::kOk) {
          hold(error_row(r, e));
          failed = true;
          break;
        }
        if (rep >= o.warmup) times.add(watch);
      }
      if (!failed) {
        times.put(r);
        r.bytes = static_cast<long long>(samples.front().signature.size());
        hold(r);
      }
    }

    if (o.wants("sizes") && key.status() == klms::Error::kOk) {
      const lms::GeneratedKey& g = key.generated();
      auto size_row = [&](const char* op, long long bytes, std::string note) {
        Row r = base_row(c, op, 1, o.message_bytes);
        r.bytes = bytes;
        r.note = std::move(note);
        hold(r);
      };
      size_row("size:public_key", static_cast<long long>(g.public_key.size()), "raw HSS public key");
      const std::size_t path_bytes = g.private_key.state_file.size();
      size_row("size:private_key", static_cast<long long>(lms::encode_private_key(g.private_key).size()),
               "KLMS private-key octets, of which " + std::to_string(path_bytes) + " are the state-file path");
      size_row("size:signature", static_cast<long long>(key.signer().signature_bytes()), "HSS signature");
      long long cache = file_bytes(key.state_file() + ".cache");
      for (unsigned level = 2; level <= c.levels; ++level) {
        const long long lower = file_bytes(key.state_file() + ".cache.level" + std::to_string(level));
        if (lower > 0) cache += lower;
      }
      size_row("size:cache", cache, c.levels > 1 ? "all levels' cache files" : "tree cache file");
      const unsigned stored = std::min<unsigned>(c.h, lms::kMaxStoredDepth);
      size_row("size:tree_memory", static_cast<long long>(((std::uint64_t{2} << stored) - 1) * 32),
               "top tree nodes kept in memory");
      size_row("size:state_file", file_bytes(key.state_file()), "two 4 KiB slots");
    }
  }

  if (o.wants("peak") && !variant) {
    const ChildPeaks peaks = measure_peaks_in_child(o, c, sign_threads, dir);
    for (const OpPeak& p : peaks.ops) {
      bool attached = false;
      for (Row& r : pending) {
        if (r.op == p.op && (r.op != "keygen" || r.threads == sign_threads)) {
          r.peak_kib = p.peak_kib;
          r.rss_before_kib = p.rss_before_kib;
          attached = true;
        }
      }
      if (!attached) {
        Row r = base_row(c, p.op, p.op == "keygen" ? sign_threads : 1, o.message_bytes);
        r.peak_kib = p.peak_kib;
        r.rss_before_kib = p.rss_before_kib;
        r.note = "peak only";
        pending.push_back(r);
      }
    }
    if (!peaks.error.empty() || !peaks.hwm_reset) {
      Row r = base_row(c, "peak", sign_threads, o.message_bytes);
      r.peak_kib = peaks.process_maxrss_kib;
      r.note = peaks.error.empty() ? "VmHWM could not be reset: peaks are whole-process" : peaks.error;
      pending.push_back(r);
    }
  }
  for (const Row& r : pending) emit(r);
}

}  // namespace klms::bench
