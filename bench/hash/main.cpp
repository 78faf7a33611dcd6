// klms-hash-bench: the hash-level half of the study. Suggested run:
//   klms-hash-bench --benchmark_repetitions=10 --benchmark_min_time=0.1 --benchmark_report_aggregates_only=true
//   OPENSSL_ia32cap=":~0x20000000" klms-hash-bench --benchmark_filter=openssl ...   (SHA-NI masked)
#include <benchmark/benchmark.h>

#include <string>

#include "bench/hash/backend_bench.h"
#include "hashes/backend.h"

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  for (const klms::hashes::Backend* b : klms::hashes::available_backends()) {
    benchmark::AddCustomContext("backend " + std::string(b->name), std::string(b->implementation));
  }
  klms::bench::hash::register_backend_benchmarks();
  klms::bench::hash::register_lsh_isa_benchmarks();
  klms::bench::hash::register_shani_floor_benchmarks();
  klms::bench::hash::register_block_floor_benchmarks();
  klms::bench::hash::register_sha_path_benchmarks();
  klms::bench::hash::register_pitfall_benchmarks();
  klms::bench::hash::register_openssl_benchmarks();
  klms::bench::hash::register_stream_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
