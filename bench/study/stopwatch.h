// Wall time of one operation, and the CPU time it took (this thread's, or the whole process's when
// the operation runs threads of its own). On a shared machine the two differ by the time other
// processes had our core; the CPU figure is the one to trust when the load is high.
#pragma once

#include <time.h>

#include <chrono>

namespace klms::bench {

class Stopwatch {
 public:
  enum class Cpu { kThread, kProcess };
  explicit Stopwatch(Cpu cpu = Cpu::kThread) noexcept
      : clock_(cpu == Cpu::kThread ? CLOCK_THREAD_CPUTIME_ID : CLOCK_PROCESS_CPUTIME_ID) {
    cpu_start_ = cpu_us();
    wall_start_ = std::chrono::steady_clock::now();  // last, so the CPU clock read is outside the wall figure
  }
  // Stops both clocks (wall first).
  void stop() noexcept {
    wall_us_ = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - wall_start_).count();
    cpu_elapsed_us_ = cpu_us() - cpu_start_;
  }
  double wall_us() const noexcept { return wall_us_; }
  double cpu_us_elapsed() const noexcept { return cpu_elapsed_us_; }

 private:
  double cpu_us() const noexcept {
    timespec ts{};
    clock_gettime(clock_, &ts);
    return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
  }
  clockid_t clock_;
  double cpu_start_ = 0, wall_us_ = 0, cpu_elapsed_us_ = 0;
  std::chrono::steady_clock::time_point wall_start_;
};

}  // namespace klms::bench
