#include "bench/study/xmss_sets.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/study/config.h"
#include "bench/study/stats.h"
#include "bench/study/stopwatch.h"
#include "xmss/keygen.h"
#include "xmss/signer.h"
#include "xmss/verify.h"

namespace klms::bench {
namespace {

using Bytes = std::vector<std::uint8_t>;

struct XmssRow {
  std::string set, backend, implementation, op;
  unsigned threads = 0;
  Summary wall, cpu;
  double compressions = 0;  // per op, SHA-256 n = 32 key generation only
};

void header(std::FILE* f) {
  std::fputs("params,backend,implementation,op,threads,reps,median_us,p10_us,p90_us,mean_us,cpu_median_us,"
             "cpu_p10_us,cpu_p90_us,cpu_mean_us,compressions,cpu_ns_per_compression\n",
             f);
}

void csv_row(std::FILE* f, const XmssRow& r) {
  std::fprintf(f, "\"%s\",%s,%s,%s,%u,%zu,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.0f,%.3f\n", r.set.c_str(),
               r.backend.c_str(), r.implementation.c_str(), r.op.c_str(), r.threads, r.wall.count, r.wall.median,
               r.wall.p10, r.wall.p90, r.wall.mean, r.cpu.median, r.cpu.p10, r.cpu.p90, r.cpu.mean, r.compressions,
               r.compressions > 0 ? r.cpu.median * 1e3 / r.compressions : 0.0);
}

void table_row(const XmssRow& r) {
  std::printf("%-24s %-12s %-8s %3u %12.1f %12.1f %12.1f", r.set.c_str(), r.backend.c_str(), r.op.c_str(), r.threads,
              r.wall.median, r.cpu.median, r.cpu.mean);
  if (r.compressions > 0) std::printf("  %.2f ns/compression (CPU)", r.cpu.median * 1e3 / r.compressions);
  std::printf("\n");
}

struct FileCloser {
  void operator()(std::FILE* f) const noexcept {
    if (f != nullptr) std::fclose(f);
  }
};

std::vector<const hashes::Backend*> backends_for(const Options& o, const xmss::Params& p) {
  std::vector<const hashes::Backend*> out;
  if (o.backends.size() == 1 && o.backends[0] == "all") {
    out.push_back(&hashes::fastest_backend(p.family));
    return out;
  }
  std::string error;
  for (const hashes::Backend* b : resolve_backends(o.backends, error)) {
    if (b->family == p.family) out.push_back(b);
  }
  return out;
}

// Fixed seeds: the timing does not depend on them.
std::unique_ptr<xmss::GeneratedKey> keygen(const xmss::Params& p, const hashes::Backend& b, unsigned threads) {
  const Bytes seed(3 * p.n, 0x5A);
  const ByteView all(seed);
  xmss::BuildOptions build;
  build.threads = threads;
  auto k = xmss::generate_key_from_seeds(p, all.first(p.n), all.subspan(p.n, p.n), all.subspan(2 * p.n, p.n), build, &b);
  if (!k) return nullptr;
  return std::make_unique<xmss::GeneratedKey>(std::move(*k));
}

bool measure_set(const Options& o, const xmss::Params& p, const hashes::Backend& b, std::vector<XmssRow>& rows) {
  auto base = [&](const std::string& op, unsigned threads) {
    XmssRow r;
    r.set = std::string(p.name);
    r.backend = std::string(b.name);
    r.implementation = std::string(b.implementation);
    r.op = op;
    r.threads = threads;
    return r;
  };
  const double compressions =
      p.family == hashes::HashFamily::kSha256 && p.n == 32 ? sha256_keygen_compressions(p.len, p.w(), p.tree_height()) : 0;
  std::unique_ptr<xmss::GeneratedKey> key;
  for (unsigned threads : o.threads) {
    std::vector<double> wall, cpu;
    double spent = 0;
    for (unsigned rep = 0; rep < o.keygen_reps; ++rep) {
      key.reset();
      Stopwatch w(Stopwatch::Cpu::kProcess);  // the helper threads count too
      key = keygen(p, b, threads);
      w.stop();
      if (!key) return false;
      wall.push_back(w.wall_us());
      cpu.push_back(w.cpu_us_elapsed());
      spent += w.wall_us() / 1e6;
      if (spent > o.keygen_budget_seconds) break;
    }
    XmssRow r = base("keygen", threads);
    r.wall = summarize(wall);
    r.cpu = summarize(cpu);
    r.compressions = compressions;
    rows.push_back(r);
  }
  if (!key) return false;
  const Bytes public_key = key->public_key;
  xmss::SignerOptions options;
  options.backend = &b;
  options.build.threads = 1;
  auto signer = xmss::Signer::create(std::move(key->key), options, std::move(key->top_tree));
  if (!signer) return false;
  const Bytes message(o.message_bytes, 0xA5);
  std::vector<Bytes> signatures;
  std::vector<double> sw, sc;
  for (unsigned rep = 0; rep < o.warmup + o.reps; ++rep) {
    Stopwatch w;
    auto s = (*signer)->sign(rep % p.leaves(), message);
    w.stop();
    if (!s) return false;
    if (rep >= o.warmup) {
      sw.push_back(w.wall_us());
      sc.push_back(w.cpu_us_elapsed());
    }
    if (signatures.size() < 64) signatures.push_back(std::move(*s));
  }
  XmssRow sr = base("sign", 1);
  sr.wall = summarize(sw);
  sr.cpu = summarize(sc);
  rows.push_back(sr);
  std::vector<double> vw, vc;
  for (unsigned rep = 0; rep < o.warmup + o.reps; ++rep) {
    Stopwatch w;
    const Error e = xmss::verify(p.scheme, public_key, message, signatures[rep % signatures.size()], &b);
    w.stop();
    if (e != Error::kOk) return false;
    if (rep >= o.warmup) {
      vw.push_back(w.wall_us());
      vc.push_back(w.cpu_us_elapsed());
    }
  }
  XmssRow vr = base("verify", 1);
  vr.wall = summarize(vw);
  vr.cpu = summarize(vc);
  rows.push_back(vr);
  return true;
}

}  // namespace

double sha256_keygen_compressions(unsigned len, unsigned w, unsigned tree_height) noexcept {
  const double leaf = 3.0 * len + 4.0 * len * (w - 1) + 6.0 * (len - 1);
  const double leaves = static_cast<double>(std::uint64_t{1} << tree_height);
  return leaves * leaf + (leaves - 1) * 6.0;
}

int run_xmss_sets(const Options& o) {
  std::unique_ptr<std::FILE, FileCloser> csv;
  if (!o.csv.empty()) {
    csv.reset(std::fopen(o.csv.c_str(), "w"));
    if (!csv) {
      std::fprintf(stderr, "klms-bench: cannot write %s\n", o.csv.c_str());
      return 1;
    }
    header(csv.get());
  }
  if (o.table) {
    std::printf("%-24s %-12s %-8s %3s %12s %12s %12s\n", "set", "backend", "op", "thr", "median_us", "cpu_med_us",
                "cpu_mean_us");
  }
  for (const std::string& name : o.xmss_sets) {
    const xmss::Params* p = xmss::find_params(name);
    if (p == nullptr) {
      std::fprintf(stderr, "klms-bench: no XMSS set named %s\n", name.c_str());
      return 2;
    }
    const auto backends = backends_for(o, *p);
    if (backends.empty()) {
      std::fprintf(stderr, "klms-bench: no backend of %s's hash among --backend\n", name.c_str());
      return 2;
    }
    for (const hashes::Backend* b : backends) {
      std::fprintf(stderr, "[xmss] %s on %s\n", name.c_str(), std::string(b->name).c_str());
      std::vector<XmssRow> rows;
      if (!measure_set(o, *p, *b, rows)) {
        std::fprintf(stderr, "klms-bench: %s on %s failed\n", name.c_str(), std::string(b->name).c_str());
        return 1;
      }
      for (const XmssRow& r : rows) {
        if (o.table) table_row(r);
        if (csv) csv_row(csv.get(), r);
      }
    }
  }
  return 0;
}

}  // namespace klms::bench
