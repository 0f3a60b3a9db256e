#include "lb/harness/host_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace lb::harness {

double unix_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

HostLock::HostLock(const std::string& path) {
  // Read-only suffices for flock, so a file another user created (mode 0644) still works.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0)
    throw std::runtime_error(fmt::format("cannot open the host's CPU benchmark lock {}: {} (name another with --cpu-lock)",
                                         path, std::strerror(errno)));
  const auto t0 = std::chrono::steady_clock::now();
  int rc;
  while ((rc = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    const int err = errno;
    ::close(fd_);
    throw std::runtime_error(fmt::format("cannot lock the host's CPU benchmark lock {}: {}", path, std::strerror(err)));
  }
  waited_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  held_from_unix_s_ = unix_now_s();
}

HostLock::~HostLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace lb::harness
