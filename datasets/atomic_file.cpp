#include "lb/datasets/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace lb::datasets {
namespace fs = std::filesystem;
namespace {

//! Live temporary files, removed by the handler of kCleanupSignals before the signal's
//! default action ends the process. The handler only reads these slots and calls unlink,
//! sigaction, raise and pthread_sigmask (async-signal-safe); the paths are strdup'ed strings
//! published through atomics and never freed while the process lives (a retired path stays
//! readable by a handler that loaded it just before), so a handler never reads freed memory.
std::array<std::atomic<char*>, 64> g_live_temporaries{};
//! Threads between mkstemp and the registration of its path (their file exists but is not in
//! a slot yet), and the signal that arrived meanwhile: the creating thread handles it once its
//! file is registered.
std::atomic<int> g_creating{0};
std::atomic<int> g_deferred_signal{0};
// SIGQUIT (Ctrl-\\), SIGXFSZ (a write past ulimit -f) and SIGXCPU end a process too: the same.
constexpr std::array kCleanupSignals{SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ, SIGXCPU};

sigset_t cleanup_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kCleanupSignals) sigaddset(&set, sig);
  return set;
}

//! Removes every registered temporary, then lets `sig` end the process by its default action.
void remove_temporaries_and_reraise(int sig) {
  for (auto& slot : g_live_temporaries)
    if (char* path = slot.load()) ::unlink(path);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(sig, &default_action, nullptr);
  ::raise(sig);
  // Blocked here (inside the handler, or in a creating thread): unblocking delivers it now.
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
}

//! Every cleanup signal is blocked while this runs (sa_mask), so a second signal never
//! interrupts the unlinking: it waits, and the first one's default action ends the process.
extern "C" void on_cleanup_signal(int sig) {
  g_deferred_signal.store(sig);         // before the check: a creator finishing now sees it
  if (g_creating.load() > 0) return;    // a file not yet registered: its creator cleans up
  remove_temporaries_and_reraise(sig);
}

void install_signal_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kCleanupSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;  // someone else's handler
      struct sigaction act {};
      act.sa_handler = on_cleanup_signal;
      act.sa_mask = cleanup_signal_set();
      act.sa_flags = 0;
      ::sigaction(sig, &act, nullptr);
    }
  });
}

int register_temporary(const fs::path& path) {
  char* copy = ::strdup(path.c_str());
  for (std::size_t i = 0; i < g_live_temporaries.size(); ++i) {
    char* expected = nullptr;
    if (g_live_temporaries[i].compare_exchange_strong(expected, copy)) return static_cast<int>(i);
  }
  std::free(copy);  // more than 64 open outputs: still removed on errors, not on signals
  return -1;
}

void unregister_temporary(int slot) {
  if (slot < 0) return;
  static std::mutex retired_mutex;
  static std::vector<char*> retired;  // kept (see g_live_temporaries), a path per output made
  char* path = g_live_temporaries[static_cast<std::size_t>(slot)].exchange(nullptr);
  const std::lock_guard lock(retired_mutex);
  retired.push_back(path);
}

//! mkstemp on `name` with its path registered before any cleanup signal can act: the signals
//! are blocked in this thread, and one taken by another thread meanwhile waits for the
//! registration (g_creating). Returns the descriptor (or -1, errno set) and the slot.
std::pair<int, int> create_registered_temporary(std::string& name) {
  install_signal_cleanup();
  const sigset_t blocked = cleanup_signal_set();
  sigset_t previous;
  ::pthread_sigmask(SIG_BLOCK, &blocked, &previous);
  g_creating.fetch_add(1);
  const int fd = ::mkstemp(name.data());
  const int err = errno;
  const int slot = fd >= 0 ? register_temporary(name) : -1;
  g_creating.fetch_sub(1);
  if (const int sig = g_deferred_signal.load()) remove_temporaries_and_reraise(sig);
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  errno = err;
  return {fd, slot};
}

//! `p` with every symlink in its last component followed (a dangling link names the file
//! it would create), then made absolute with the links of its folders resolved.
fs::path follow_links(const OutputPath& out) {
  fs::path p = out.path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return fs::weakly_canonical(fs::absolute(p));
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) throw InputError(fmt::format("{} {}: cannot read the symlink: {}", out.option, out.path, ec.message()));
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw InputError(fmt::format("{} {}: too many levels of symbolic links", out.option, out.path));
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(fs::absolute(a), ec) == fs::weakly_canonical(fs::absolute(b), ec);
}

}  // namespace

fs::path resolve_output(const OutputPath& out) {
  auto fail = [&](const std::string& why) { return InputError(fmt::format("{} {}: {}", out.option, out.path, why)); };
  if (out.path.empty()) throw InputError(fmt::format("{}: empty path", out.option));
  fs::path target;
  try {
    target = follow_links(out);
  } catch (const fs::filesystem_error& e) {
    throw fail(e.code().message());
  }
  const fs::path folder = target.parent_path();
  std::error_code ec;
  const auto folder_status = fs::status(folder, ec);
  if (!fs::exists(folder_status)) throw fail(fmt::format("the folder '{}' does not exist", folder.string()));
  if (!fs::is_directory(folder_status)) throw fail(fmt::format("'{}' is not a folder", folder.string()));
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw fail("is a directory (give a file name)");
    if (!S_ISREG(st.st_mode))
      throw fail("is not a regular file (a device, FIFO or socket): refusing to replace it with a file");
    // As `cp` refuses for a non-root user; checked on the mode bits so that root is refused too.
    if ((st.st_mode & 0222) == 0 || ::access(target.c_str(), W_OK) != 0)
      throw fail(fmt::format("is read-only (mode {:04o}): refusing to replace it (make it writable or remove it)",
                             st.st_mode & 07777));
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw fail(fmt::format("cannot write in the folder '{}': {}", folder.string(), std::strerror(errno)));
  return target;
}

void check_outputs(const std::vector<OutputPath>& outputs, const std::vector<std::string>& inputs) {
  std::vector<fs::path> targets;
  for (const auto& out : outputs) {
    targets.push_back(resolve_output(out));
    for (const auto& in : inputs)
      if (!in.empty() && same_file(in, targets.back()))
        throw InputError(fmt::format("{} {}: is the input file {}; refusing to overwrite an input", out.option,
                                     out.path, in));
    for (std::size_t k = 0; k + 1 < targets.size(); ++k)
      if (same_file(targets[k], targets.back()))
        throw InputError(fmt::format("{} {} and {} {} name the same file", outputs[k].option, outputs[k].path,
                                     out.option, out.path));
  }
}

void FileSink::open(int fd) {
  fd_ = fd;
  error_ = 0;
  setp(buffer_.data(), buffer_.data() + buffer_.size());
}

bool FileSink::write_all(const char* p, std::size_t n) {
  if (error_) return false;
  while (n > 0) {
    const ssize_t written = ::write(fd_, p, n);
    if (written < 0) {
      if (errno == EINTR) continue;
      error_ = errno;
      return false;
    }
    p += written;
    n -= static_cast<std::size_t>(written);
  }
  return true;
}

bool FileSink::drain() {
  const bool ok = write_all(pbase(), static_cast<std::size_t>(pptr() - pbase()));
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return ok;
}

FileSink::int_type FileSink::overflow(int_type ch) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

std::streamsize FileSink::xsputn(const char* s, std::streamsize n) {
  if (n < epptr() - pptr()) {  // fits the buffer
    std::memcpy(pptr(), s, static_cast<std::size_t>(n));
    pbump(static_cast<int>(n));
    return n;
  }
  return drain() && write_all(s, static_cast<std::size_t>(n)) ? n : 0;  // large: straight through
}

bool FileSink::close() {
  if (fd_ < 0) return error_ == 0;
  const bool drained = drain();
  if (::close(fd_) != 0 && !error_) error_ = errno;  // NFS and friends report ENOSPC here
  fd_ = -1;
  return drained && error_ == 0;
}

AtomicFile::AtomicFile(const OutputPath& out) : out_path_(out), target_(resolve_output(out)) {
  std::string name = target_.parent_path() / ".";
  name.append(target_.filename().string()).append(".XXXXXX");
  const auto [fd, slot] = create_registered_temporary(name);
  if (fd < 0)
    throw InputError(fmt::format("{} {}: cannot create a temporary file in '{}': {}", out.option, out.path,
                                 target_.parent_path().string(), std::strerror(errno)));
  tmp_ = name;
  registry_slot_ = slot;
  // The finished file keeps the replaced file's mode (and owner, where allowed); a new one
  // gets the usual 0666 less the umask, not mkstemp's 0600.
  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0) {
    ::fchmod(fd, st.st_mode & 07777);
    if (::fchown(fd, st.st_uid, st.st_gid) != 0) { /* not root: the file stays ours */ }
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
  }
  sink_.open(fd);
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::discard() {
  if (sink_.is_open()) sink_.close();
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  unregister_temporary(registry_slot_);
  registry_slot_ = -1;
}

std::string write_failure(const OutputPath& out, int error) {
  return fmt::format("{} {}: write failed{}", out.option, out.path,
                     error ? fmt::format(": {}", std::strerror(error)) : std::string());
}

void AtomicFile::finish() {
  if (finished_) return;
  out_.flush();
  const bool written = static_cast<bool>(out_) && sink_.close();
  if (!written) {
    const int error = sink_.error();
    discard();
    throw InputError(write_failure(out_path_, error));
  }
  finished_ = true;
}

void AtomicFile::commit() {
  finish();
  if (::rename(tmp_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    discard();
    throw InputError(fmt::format("{} {}: cannot move the finished file into place: {}", out_path_.option,
                                 out_path_.path, std::strerror(err)));
  }
  unregister_temporary(registry_slot_);
  registry_slot_ = -1;
  committed_ = true;
}

AtomicFiles::AtomicFiles(const std::vector<OutputPath>& outputs, const std::vector<std::string>& inputs) {
  check_outputs(outputs, inputs);
  for (const auto& out : outputs) files_.push_back(std::make_unique<AtomicFile>(out));
}

void AtomicFiles::commit() {
  for (auto& f : files_) f->finish();  // all written before any is moved into place
  for (std::size_t i = 0; i < files_.size(); ++i) {
    try {
      files_[i]->commit();
    } catch (const InputError& e) {
      if (i == 0) throw;
      throw InputError(fmt::format("{} (the {} output(s) before it were already written)", e.what(), i));
    }
  }
}

}  // namespace lb::datasets
