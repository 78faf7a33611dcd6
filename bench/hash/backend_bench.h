// Registration functions of klms-hash-bench's benchmark families (called from main, after the
// backend table exists, so that only the backends this CPU can run are registered).
#pragma once

namespace klms::bench::hash {

void register_backend_benchmarks();   // backend_bench.cpp
void register_pitfall_benchmarks();   // pitfall_bench.cpp
void register_openssl_benchmarks();   // openssl_bench.cpp
void register_lsh_isa_benchmarks();   // lsh_isa_bench.cpp
void register_shani_floor_benchmarks();  // shani_floor_bench.cpp
void register_block_floor_benchmarks();  // block_floor_bench.cpp
void register_sha_path_benchmarks();  // sha_paths_bench.cpp
void register_stream_benchmarks();    // stream_bench.cpp

}  // namespace klms::bench::hash
