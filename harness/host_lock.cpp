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

namespace {

//! The file's descriptor, opened read-only (enough for flock, so a file another user created
//! with mode 0644 still works).
int open_lock_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    throw std::runtime_error(fmt::format("cannot open the host's CPU benchmark lock {}: {} (name another with --cpu-lock)",
                                         path, std::strerror(errno)));
  return fd;
}

void lock_file(int fd, int operation, const std::string& path) {
  int rc;
  while ((rc = ::flock(fd, operation)) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    const int err = errno;
    ::close(fd);
    throw std::runtime_error(fmt::format("cannot lock the host's CPU benchmark lock {}: {}", path, std::strerror(err)));
  }
}

}  // namespace

HostLock::HostLock(const std::string& path, Mode mode) {
  const std::string turnstile_path = path + ".turnstile";
  const int turnstile = open_lock_file(turnstile_path);
  try {
    fd_ = open_lock_file(path);
  } catch (...) {
    ::close(turnstile);
    throw;
  }
  const auto t0 = std::chrono::steady_clock::now();
  // Through the turnstile first: a writer waiting for the lock holds it, so no reader enters
  // ahead of it; a writer keeps it until it holds the lock itself.
  try {
    lock_file(turnstile, LOCK_EX, turnstile_path);
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
  try {
    lock_file(fd_, mode == Mode::exclusive ? LOCK_EX : LOCK_SH, path);
  } catch (...) {
    ::close(turnstile);
    fd_ = -1;
    throw;
  }
  ::close(turnstile);  // releases the turnstile
  waited_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  held_from_unix_s_ = unix_now_s();
}

HostLock::~HostLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace lb::harness
