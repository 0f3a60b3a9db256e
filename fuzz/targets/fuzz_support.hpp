#pragma once
//! What every loader fuzz target shares: the input as a file (the loaders read paths), the
//! one rule a loader must keep (succeed, or throw its own error type with a one-line message
//! naming the file), and a check that aborts with a message (the engine saves the input).

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

#include <cxxabi.h>

namespace lb::fuzz {

[[noreturn]] inline void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "lb_fuzz: %s: %s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

#define LB_FUZZ_CHECK(cond) \
  ((cond) ? (void)0 : ::lb::fuzz::fail("check failed", std::string(#cond) + " at " __FILE__ ":" + std::to_string(__LINE__)))

//! The fuzz input as a file the loaders can open by name: an in-memory file (memfd), opened
//! as /proc/self/fd/N, rewritten for every input; nothing touches the disk.
class InputFile {
 public:
  InputFile() {
    fd_ = memfd_create("lb_fuzz_input", 0);
    if (fd_ < 0) fail("memfd_create", "cannot make the in-memory input file");
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  const std::string& write(const std::uint8_t* data, std::size_t size) {
    if (ftruncate(fd_, 0) != 0) fail("ftruncate", path_);
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) fail("pwrite", path_);
      done += static_cast<std::size_t>(n);
    }
    return path_;
  }

 private:
  int fd_ = -1;
  std::string path_;
};

//! Runs `load` on the input at `path`: it may return, or throw Error whose message names the
//! file first and is one line (the project's "<file>:<line>: <problem>"). Any other
//! exception, or such a message, aborts.
template <class Error, class Load>
void expect_clean(const std::string& path, Load&& load) {
  try {
    load();
  } catch (const Error& e) {
    const std::string_view message = e.what();
    if (!message.starts_with(path)) fail("error does not name the file first", std::string(message));
    if (message.find('\n') != std::string_view::npos) fail("error message spans several lines", std::string(message));
  } catch (const std::exception& e) {
    int status = 0;
    char* name = abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status);
    fail("unexpected exception", std::string(status == 0 ? name : typeid(e).name()) + ": " + e.what());
  } catch (...) {
    fail("unexpected exception", "not a std::exception");
  }
}

}  // namespace lb::fuzz
