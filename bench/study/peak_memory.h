// Peak resident memory per operation.
//
// Method: for each configuration the parent fork()s and exec()s this same program (a fresh process
// image, so nothing of the parent's heap is resident) in a child mode that runs keygen, sign (tree
// in memory), verify and sign-cachefile once each. Before each operation the child resets its
// high-water mark by writing "5" to /proc/self/clear_refs, then reads VmHWM from /proc/self/status
// afterwards. So peak_kib is the largest RSS during that operation, including what was already
// resident (the process itself, and for sign the key's tree); rss_before_kib is VmRSS just before
// it. The parent also records the child's whole-life ru_maxrss from wait4().
#pragma once

#include <string>
#include <vector>

#include "bench/study/config.h"
#include "bench/study/options.h"

namespace klms::bench {

struct OpPeak {
  std::string op;
  long peak_kib = -1;
  long rss_before_kib = -1;
};

struct ChildPeaks {
  std::vector<OpPeak> ops;
  long process_maxrss_kib = -1;  // wait4() ru_maxrss of the child
  bool hwm_reset = true;         // false: clear_refs was refused, VmHWM is the whole process's
  std::string error;             // empty on success
};

ChildPeaks measure_peaks_in_child(const Options& options, const Config& config, unsigned threads,
                                  const std::string& dir);

// The child's side: runs the operations and prints "peak op=... peak_kib=... rss_before_kib=...".
int run_peak_child(const Options& options);

}  // namespace klms::bench
