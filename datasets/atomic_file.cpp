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

#include <fmt/format.h>

namespace lb::datasets {
namespace fs = std::filesystem;
namespace {

//! Live temporary files, removed by the SIGINT/SIGTERM/SIGHUP handler before the signal's
//! default action ends the process (unlink is async-signal-safe; the paths are plain
//! strdup'ed strings published through atomics).
std::array<std::atomic<char*>, 64> g_live_temporaries{};

extern "C" void remove_temporaries_and_reraise(int sig) {
  for (auto& slot : g_live_temporaries)
    if (char* path = slot.load()) ::unlink(path);
  ::raise(sig);  // SA_RESETHAND | SA_NODEFER: the default action runs now
}

void install_signal_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;  // someone else's handler
      struct sigaction act {};
      act.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&act.sa_mask);
      act.sa_flags = SA_RESETHAND | SA_NODEFER;
      ::sigaction(sig, &act, nullptr);
    }
  });
}

int register_temporary(const fs::path& path) {
  install_signal_cleanup();
  char* copy = ::strdup(path.c_str());
  for (std::size_t i = 0; i < g_live_temporaries.size(); ++i) {
    char* expected = nullptr;
    if (g_live_temporaries[i].compare_exchange_strong(expected, copy)) return static_cast<int>(i);
  }
  std::free(copy);  // more than 64 open outputs: still removed on errors, not on signals
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) std::free(g_live_temporaries[static_cast<std::size_t>(slot)].exchange(nullptr));
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

AtomicFile::AtomicFile(const OutputPath& out) : out_path_(out), target_(resolve_output(out)) {
  std::string name = target_.parent_path() / ".";
  name.append(target_.filename().string()).append(".XXXXXX");
  const int fd = ::mkstemp(name.data());
  if (fd < 0)
    throw InputError(fmt::format("{} {}: cannot create a temporary file in '{}': {}", out.option, out.path,
                                 target_.parent_path().string(), std::strerror(errno)));
  tmp_ = name;
  registry_slot_ = register_temporary(tmp_);
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
  ::close(fd);
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    discard();
    throw InputError(fmt::format("{} {}: cannot write ({})", out.option, out.path, std::strerror(errno)));
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::discard() {
  if (out_.is_open()) out_.close();
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  unregister_temporary(registry_slot_);
  registry_slot_ = -1;
}

void AtomicFile::finish() {
  if (finished_) return;
  out_.flush();
  const bool written = static_cast<bool>(out_);
  out_.close();
  if (!written || out_.fail()) {
    discard();
    throw InputError(fmt::format("{} {}: write failed", out_path_.option, out_path_.path));
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
