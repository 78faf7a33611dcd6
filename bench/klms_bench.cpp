// klms-bench: key generation, signing and verification of the LMS engine over any hash backend,
// h, w, L and thread count; sizes, peak memory and the hash-call profile. Prints a table and
// writes CSV (the study's columns first). Run with --help for the options.
//
// Example (the targets):
//   klms-bench --backend=sha256-hw --h=10 --w=4 --threads=1,2 --reps=1000 --csv=out.csv
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "bench/study/config.h"
#include "bench/study/hash_cost.h"
#include "bench/study/options.h"
#include "bench/study/peak_memory.h"
#include "bench/study/profile.h"
#include "bench/study/rows.h"
#include "bench/study/scheme_bench.h"
#include "bench/study/temp_dir.h"
#include "bench/study/xmss_compare.h"
#include "bench/study/xmss_sets.h"

namespace klms::bench {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const noexcept {
    if (f != nullptr) std::fclose(f);
  }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File open_output(const std::string& path) {
  if (path.empty()) return nullptr;
  File f(std::fopen(path.c_str(), "w"));
  if (!f) std::fprintf(stderr, "klms-bench: cannot write %s\n", path.c_str());
  return f;
}

int list_backends() {
  for (const hashes::Backend* b : hashes::available_backends()) {
    std::printf("%s\t%s\tlanes=%zu\n", std::string(b->name).c_str(), std::string(b->implementation).c_str(), b->lanes);
  }
  for (const char* name : {"lsh256-naive-dispatch", "lsh256-serial", "sha256-shani"}) {
    if (const hashes::Backend* b = backend_by_name(name)) {
      std::printf("%s\t%s\tlanes=%zu\t(study variant)\n", name, std::string(b->implementation).c_str(), b->lanes);
    }
  }
  return 0;
}

// One-shot (hash_one) and 16-message hash_many cost of every backend at each input length.
int hash_costs(const Options& o, const std::vector<const hashes::Backend*>& backends) {
  File csv = open_output(o.hash_cost_csv);
  if (!o.hash_cost_csv.empty() && !csv) return 1;
  if (csv) write_hash_cost_csv_header(csv.get());
  for (const hashes::Backend* b : backends) {
    for (std::size_t len : o.hash_cost_lengths) {
      for (HashPath path : {HashPath::kOne, HashPath::kMany}) {
        HashCostRow r;
        r.backend = std::string(b->name);
        r.implementation = std::string(b->implementation);
        r.path = hash_path_name(path);
        r.input_bytes = len;
        r.batch = path == HashPath::kMany ? 16 : 1;
        r.ns_per_hash = ns_per_message(*b, path, len, r.batch);
        if (o.table) {
          std::printf("%-22s %-6s %6zu B  batch %2zu  %10.1f ns/hash\n", r.backend.c_str(), r.path.c_str(), len,
                      r.batch, r.ns_per_hash);
        }
        if (csv) write_hash_cost_csv_row(csv.get(), r);
      }
    }
  }
  return 0;
}

int run(const Options& o) {
  if (o.list_backends) return list_backends();
  if (o.xmss_compare) return run_xmss_compare(o);
  if (!o.xmss_sets.empty()) return run_xmss_sets(o);
  std::string error;
  const std::vector<const hashes::Backend*> backends = resolve_backends(o.backends, error);
  if (backends.empty()) {
    std::fprintf(stderr, "klms-bench: %s\n", error.empty() ? "no backend" : error.c_str());
    return 2;
  }
  if (!o.hash_cost_lengths.empty()) return hash_costs(o, backends);

  std::vector<Config> configs;
  for (unsigned levels : o.levels) {
    for (unsigned h : o.heights) {
      for (unsigned w : o.winternitz) {
        for (const hashes::Backend* b : backends) {
          auto c = make_config(*b, h, w, levels, o.lower_height);
          if (!c) {
            std::fprintf(stderr, "klms-bench: no parameter set for %s h=%u w=%u L=%u\n", std::string(b->name).c_str(),
                         h, w, levels);
            return 2;
          }
          configs.push_back(*c);
        }
      }
    }
  }

  PrivateTempDir dir;
  if (!dir.ok()) {
    std::fprintf(stderr, "klms-bench: cannot create a private temporary directory\n");
    return 1;
  }
  File csv = open_output(o.csv);
  File profile_csv = open_output(o.profile_csv);
  if ((!o.csv.empty() && !csv) || (!o.profile_csv.empty() && !profile_csv)) return 1;
  if (csv) write_csv_header(csv.get());
  if (profile_csv) write_profile_csv_header(profile_csv.get());
  if (o.table) print_table_header(stdout);

  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Config& c = configs[i];
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "[%zu/%zu] %s  (%.0f s elapsed)\n", i + 1, configs.size(), c.label().c_str(), elapsed);
    std::vector<Row> rows;
    measure_scheme(o, c, dir.path(), [&](const Row& r) {
      rows.push_back(r);
      if (o.table) print_table_row(stdout, r);
      if (csv) write_csv_row(csv.get(), r);
    });
    if (o.wants("profile")) {
      for (const ProfileRow& p : profile_config(o, c, dir.path(), rows)) {
        if (o.table) print_profile_row(stdout, p);
        if (profile_csv) write_profile_csv_row(profile_csv.get(), p);
      }
    }
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "klms-bench: %zu configurations in %.1f s\n", configs.size(), total);
  return 0;
}

}  // namespace
}  // namespace klms::bench

int main(int argc, char** argv) {
  std::string error;
  bool help = false;
  const auto options = klms::bench::parse_options(argc, argv, error, help);
  if (help) {
    std::fputs(klms::bench::usage(), stdout);
    return 0;
  }
  if (!options) {
    std::fprintf(stderr, "klms-bench: %s\n%s", error.c_str(), klms::bench::usage());
    return 2;
  }
  if (options->child) return klms::bench::run_peak_child(*options);
  return klms::bench::run(*options);
}
