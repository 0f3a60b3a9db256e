#pragma once
//! A host-wide exclusive lock (flock on a file), held by a CPU benchmark from its set-up to its
//! last repetition, so the processes of a multi-GPU run (one per GPU) never time CPU
//! benchmarks at once (docs/architecture.md, "Harness guarantees"). The kernel releases it
//! when the process dies, however it dies.

#include <string>

namespace lb::harness {

//! The lock file `layoutbench run` uses unless --cpu-lock names another.
inline constexpr const char* kDefaultCpuLock = "/tmp/layoutbench-cpu.lock";

class HostLock {
 public:
  //! Blocks until the lock on `path` is held; throws std::runtime_error naming the file when
  //! it cannot be opened or locked.
  explicit HostLock(const std::string& path);
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
