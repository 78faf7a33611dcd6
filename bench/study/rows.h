// The rows klms-bench produces and how they are printed: an aligned table for people and CSV for
// the study's scripts. The first eleven CSV columns are fixed by the study:
//   backend,op,lms_type,ots_type,levels,threads,median_us,p10_us,p90_us,peak_kib,bytes
// and more follow. Empty fields mean "not measured for this op".
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "bench/study/config.h"
#include "bench/study/stats.h"

namespace klms::bench {

struct Row {
  std::string backend, op, lms_type, ots_type;
  unsigned levels = 1, threads = 1;
  std::optional<Summary> time_us;  // wall time
  std::optional<Summary> cpu_us;   // CPU time of the same runs (process-wide for key generation)
  long peak_kib = -1;
  long long bytes = -1;
  unsigned h = 0, w = 0, lower_h = 0;
  std::size_t message_bytes = 0;
  long rss_before_kib = -1;
  std::string implementation, note;
};

// A row with the configuration's fields filled in.
Row base_row(const Config& config, const std::string& op, unsigned threads, std::size_t message_bytes);

void write_csv_header(std::FILE* f);
void write_csv_row(std::FILE* f, const Row& row);
void print_table_header(std::FILE* f);
void print_table_row(std::FILE* f, const Row& row);

// Hash-call profile: per operation, hashes by total input length and path, with the measured cost
// of one such hash on the same backend, so that est_us_per_op shows where the time goes.
struct ProfileRow {
  std::string backend, op, lms_type, ots_type;
  unsigned levels = 1, threads = 1;
  std::size_t input_bytes = 0;  // 0 on the "total" row
  std::string path;             // one | many | stream | total
  double hashes_per_op = 0, calls_per_op = 0, share_of_hashes = 0;
  double ns_per_hash = 0, est_us_per_op = 0, share_of_est_time = 0;  // priced in isolation
  double inside_ns_per_hash = 0, inside_us_per_op = 0;  // timed in place, inside the counted op
  double measured_us_per_op = -1;  // the op's measured median (total rows), -1 when not measured
};

void write_profile_csv_header(std::FILE* f);
void write_profile_csv_row(std::FILE* f, const ProfileRow& row);
void print_profile_row(std::FILE* f, const ProfileRow& row);

// One-shot cost of a backend at an input length (--hash-costs).
struct HashCostRow {
  std::string backend, implementation, path;
  std::size_t input_bytes = 0, batch = 1;
  double ns_per_hash = 0;
};
void write_hash_cost_csv_header(std::FILE* f);
void write_hash_cost_csv_row(std::FILE* f, const HashCostRow& row);

}  // namespace klms::bench
