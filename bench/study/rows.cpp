#include "bench/study/rows.h"

namespace klms::bench {
namespace {

void put_time(std::FILE* f, const std::optional<Summary>& s, double Summary::*field) {
  if (s) std::fprintf(f, ",%.3f", (*s).*field);
  else std::fputs(",", f);
}

void put_long(std::FILE* f, long long v) {
  if (v >= 0) std::fprintf(f, ",%lld", v);
  else std::fputs(",", f);
}

// CSV fields here never hold commas or quotes except the free-text note: quote that one.
void put_text(std::FILE* f, const std::string& s) {
  std::fputc(',', f);
  if (s.find_first_of(",\"\n") == std::string::npos) {
    std::fputs(s.c_str(), f);
    return;
  }
  std::fputc('"', f);
  for (char c : s) {
    if (c == '"') std::fputc('"', f);
    std::fputc(c == '\n' ? ' ' : c, f);
  }
  std::fputc('"', f);
}

std::string with_unit(long long v, const char* unit) {
  return v >= 0 ? std::to_string(v) + unit : "-";
}

}  // namespace

Row base_row(const Config& c, const std::string& op, unsigned threads, std::size_t message_bytes) {
  Row r;
  r.backend = std::string(c.backend->name);
  r.op = op;
  r.lms_type = c.lms_names();
  r.ots_type = c.ots_names();
  r.levels = c.levels;
  r.threads = threads;
  r.h = c.h;
  r.w = c.w;
  r.lower_h = c.levels > 1 ? c.lower_h : 0;
  r.message_bytes = message_bytes;
  r.implementation = std::string(c.backend->implementation);
  return r;
}

void write_csv_header(std::FILE* f) {
  std::fputs("backend,op,lms_type,ots_type,levels,threads,median_us,p10_us,p90_us,peak_kib,bytes,"
             "h,w,lower_h,reps,mean_us,min_us,max_us,cpu_median_us,cpu_p10_us,cpu_p90_us,rss_before_kib,message_bytes,"
             "implementation,note\n",
             f);
}

void write_csv_row(std::FILE* f, const Row& r) {
  std::fprintf(f, "%s,%s,%s,%s,%u,%u", r.backend.c_str(), r.op.c_str(), r.lms_type.c_str(), r.ots_type.c_str(),
               r.levels, r.threads);
  put_time(f, r.time_us, &Summary::median);
  put_time(f, r.time_us, &Summary::p10);
  put_time(f, r.time_us, &Summary::p90);
  put_long(f, r.peak_kib);
  put_long(f, r.bytes);
  std::fprintf(f, ",%u,%u,", r.h, r.w);
  if (r.lower_h != 0) std::fprintf(f, "%u", r.lower_h);
  put_long(f, r.time_us ? static_cast<long long>(r.time_us->count) : -1);
  put_time(f, r.time_us, &Summary::mean);
  put_time(f, r.time_us, &Summary::min);
  put_time(f, r.time_us, &Summary::max);
  put_time(f, r.cpu_us, &Summary::median);
  put_time(f, r.cpu_us, &Summary::p10);
  put_time(f, r.cpu_us, &Summary::p90);
  put_long(f, r.rss_before_kib);
  put_long(f, static_cast<long long>(r.message_bytes));
  put_text(f, r.implementation);
  put_text(f, r.note);
  std::fputc('\n', f);
  std::fflush(f);
}

void print_table_header(std::FILE* f) {
  std::fprintf(f, "%-22s %-16s %-22s %-21s %2s %3s %12s %12s %12s %12s %10s %9s\n", "backend", "op", "lms_type",
               "ots_type", "L", "thr", "median_us", "p10_us", "p90_us", "cpu_med_us", "peak", "bytes");
}

void print_table_row(std::FILE* f, const Row& r) {
  char median[32] = "-", p10[32] = "-", p90[32] = "-", cpu[32] = "-";
  if (r.time_us) {
    std::snprintf(median, sizeof median, "%.2f", r.time_us->median);
    std::snprintf(p10, sizeof p10, "%.2f", r.time_us->p10);
    std::snprintf(p90, sizeof p90, "%.2f", r.time_us->p90);
  }
  if (r.cpu_us) std::snprintf(cpu, sizeof cpu, "%.2f", r.cpu_us->median);
  std::fprintf(f, "%-22s %-16s %-22s %-21s %2u %3u %12s %12s %12s %12s %10s %9s%s%s\n", r.backend.c_str(),
               r.op.c_str(), r.lms_type.c_str(), r.ots_type.c_str(), r.levels, r.threads, median, p10, p90, cpu,
               with_unit(r.peak_kib, "K").c_str(), with_unit(r.bytes, "").c_str(), r.note.empty() ? "" : "  ",
               r.note.c_str());
  std::fflush(f);
}

void write_profile_csv_header(std::FILE* f) {
  std::fputs("backend,op,lms_type,ots_type,levels,threads,input_bytes,path,hashes_per_op,calls_per_op,"
             "share_of_hashes,ns_per_hash,est_us_per_op,share_of_est_time,inside_ns_per_hash,inside_us_per_op,"
             "measured_us_per_op\n",
             f);
}

void write_profile_csv_row(std::FILE* f, const ProfileRow& r) {
  std::fprintf(f, "%s,%s,%s,%s,%u,%u,%zu,%s,%.3f,%.3f,%.6f,%.2f,%.3f,%.6f,%.2f,%.3f,", r.backend.c_str(),
               r.op.c_str(), r.lms_type.c_str(), r.ots_type.c_str(), r.levels, r.threads, r.input_bytes,
               r.path.c_str(), r.hashes_per_op, r.calls_per_op, r.share_of_hashes, r.ns_per_hash, r.est_us_per_op,
               r.share_of_est_time, r.inside_ns_per_hash, r.inside_us_per_op);
  if (r.measured_us_per_op >= 0) std::fprintf(f, "%.3f", r.measured_us_per_op);
  std::fputc('\n', f);
  std::fflush(f);
}

void print_profile_row(std::FILE* f, const ProfileRow& r) {
  if (r.path == "total") {
    std::fprintf(f, "  %-16s %-8s total %12.1f hashes/op  priced %10.1f us  in place %10.1f us", r.backend.c_str(),
                 r.op.c_str(), r.hashes_per_op, r.est_us_per_op, r.inside_us_per_op);
    if (r.measured_us_per_op >= 0) std::fprintf(f, "  measured %10.1f us", r.measured_us_per_op);
    std::fputc('\n', f);
    return;
  }
  std::fprintf(f,
               "  %-16s %-8s %5zu B %-6s %12.1f hashes/op (%5.1f%%) %8.1f ns/hash -> %10.1f us (%5.1f%%)  in place "
               "%8.1f ns/hash %10.1f us\n",
               r.backend.c_str(), r.op.c_str(), r.input_bytes, r.path.c_str(), r.hashes_per_op,
               100 * r.share_of_hashes, r.ns_per_hash, r.est_us_per_op, 100 * r.share_of_est_time,
               r.inside_ns_per_hash, r.inside_us_per_op);
}

void write_hash_cost_csv_header(std::FILE* f) {
  std::fputs("backend,implementation,path,input_bytes,batch,ns_per_hash\n", f);
}

void write_hash_cost_csv_row(std::FILE* f, const HashCostRow& r) {
  std::fputs(r.backend.c_str(), f);
  put_text(f, r.implementation);
  std::fprintf(f, ",%s,%zu,%zu,%.2f\n", r.path.c_str(), r.input_bytes, r.batch, r.ns_per_hash);
  std::fflush(f);
}

}  // namespace klms::bench
