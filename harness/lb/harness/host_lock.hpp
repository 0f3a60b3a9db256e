#pragma once
//! A host-wide reader/writer lock (flock on a file), held by every benchmark from its set-up to
//! its last repetition: a CPU benchmark exclusively, any other benchmark shared. So while a CPU
//! benchmark of one process of a multi-GPU run (one per GPU) is timed, no other process runs a
//! benchmark at all, its host work (references, validation, data) included: serialising the
//! CPU benchmarks alone left the two cards' CPU times 13 % apart at the median (two H200s,
//! quick). Writers go first: a CPU benchmark waiting for the lock holds a second file,
//! `<path>.turnstile`, that every newcomer passes through, so the other card's stream of GPU
//! benchmarks cannot starve it. The kernel releases both when the process dies, however it
//! dies (docs/architecture.md, "Harness guarantees").

#include <string>

namespace lb::harness {

//! The lock file `layoutbench run` uses unless --cpu-lock names another.
inline constexpr const char* kDefaultCpuLock = "/tmp/layoutbench-cpu.lock";

class HostLock {
 public:
  enum class Mode { exclusive, shared };
  //! Blocks until the lock on `path` is held in `mode`; throws std::runtime_error naming the
  //! file when it cannot be opened or locked.
  explicit HostLock(const std::string& path, Mode mode = Mode::exclusive);
  HostLock(const HostLock&) = delete;
  HostLock& operator=(const HostLock&) = delete;
  ~HostLock();
  double waited_s() const { return waited_s_; }
  //! When it was taken, in seconds since the Unix epoch (comparable across processes).
  double held_from_unix_s() const { return held_from_unix_s_; }

 private:
  int fd_ = -1;
  double waited_s_ = 0, held_from_unix_s_ = 0;
};

//! Now, in seconds since the Unix epoch.
double unix_now_s();

}  // namespace lb::harness
