#pragma once
//! Output files that appear whole or not at all.
//!
//! A path given as an output is resolved first: symlinks are followed, so the file a link
//! names is replaced (in its own folder) and the link stays. The new content goes to a
//! unique temporary file (mkstemp, ".<name>.XXXXXX" next to the resolved target, so the
//! rename cannot cross file systems), which takes the existing file's mode, and is renamed
//! into place on commit. A failure, an exception before commit, SIGINT, SIGTERM, SIGHUP,
//! SIGQUIT, SIGXFSZ (a write past `ulimit -f`) or SIGXCPU removes
//! the temporary file, so no half-written file is ever left behind: the signal handler blocks
//! the other cleanup signals while it runs, so however many signals arrive (`timeout` sends
//! two, a user presses ^C twice), the temporary file is removed before the process ends. A
//! failed write is reported with the system's reason ("No space left on device").
//!
//! Refused before any work (InputError naming the option and the path): a missing folder,
//! a folder without write permission, a directory, an existing path that is not a regular
//! file (a device, FIFO or socket is never replaced by a file), an existing file without
//! any write permission bit (as `cp` refuses it for a non-root user; checked on the mode
//! bits, so also for root), an output that is one of the inputs, and two outputs naming
//! one file.

#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "lb/datasets/points.hpp"

namespace lb::datasets {

//! An output a command writes: the option that named it ("--out") and the path given.
struct OutputPath {
  std::string option;
  std::string path;
};

//! The file an output path would replace (symlinks followed); throws InputError, naming
//! the option, for every refusal listed above except the input and duplicate checks.
std::filesystem::path resolve_output(const OutputPath& out);

//! Checks every output (resolve_output), that none is one of `inputs`, and that no two name
//! the same file. Cheap: run it before computing.
void check_outputs(const std::vector<OutputPath>& outputs, const std::vector<std::string>& inputs = {});

//! The stream buffer of an AtomicFile: writes to a descriptor and keeps the errno of the first
//! failed write (std::ofstream loses it), so the error can say why.
class FileSink : public std::streambuf {
 public:
  FileSink() : buffer_(std::size_t(1) << 16) {}
  void open(int fd);
  //! Writes what is buffered and closes the descriptor; false (errno kept) on failure.
  bool close();
  bool is_open() const { return fd_ >= 0; }
  //! errno of the first failed write or close, 0 if none failed.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain();
  bool write_all(const char* p, std::size_t n);

  std::vector<char> buffer_;
  int fd_ = -1, error_ = 0;
};

class AtomicFile {
 public:
  //! Resolves and checks the path, creates the temporary file; throws InputError.
  explicit AtomicFile(const OutputPath& out);
  explicit AtomicFile(const std::string& path) : AtomicFile(OutputPath{"output", path}) {}
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  std::ostream& stream() { return out_; }
  void write(std::string_view text) { out_.write(text.data(), static_cast<std::streamsize>(text.size())); }
  const std::string& path() const { return out_path_.path; }
  const std::filesystem::path& target() const { return target_; }

  //! Flushes and closes the temporary file; throws InputError (removing it) if a write failed.
  void finish();
  //! finish(), then renames the temporary file onto the target; throws InputError (and
  //! removes the temporary file) if that fails.
  void commit();

 private:
  void discard();

  OutputPath out_path_;
  std::filesystem::path target_, tmp_;
  FileSink sink_;
  std::ostream out_{&sink_};
  int registry_slot_ = -1;
  bool finished_ = false, committed_ = false;
};

//! Several outputs of one command, landing all or none: every path is checked (check_outputs)
//! and every temporary file created at construction, before any computing; commit() finishes
//! every file and renames them only when all were written. (The renames themselves are
//! separate system calls: one failing after another succeeded, which the checks make
//! unlikely, is reported.)
//! The error of a failed write to `out`: "<option> <path>: write failed: <strerror(error)>"
//! (without the reason when `error` is 0).
std::string write_failure(const OutputPath& out, int error);

class AtomicFiles {
 public:
  explicit AtomicFiles(const std::vector<OutputPath>& outputs, const std::vector<std::string>& inputs = {});
  AtomicFile& operator[](std::size_t i) { return *files_[i]; }
  std::size_t size() const { return files_.size(); }
  void commit();

 private:
  std::vector<std::unique_ptr<AtomicFile>> files_;
};

//! One file, written by `write(std::ostream&)` and committed at once.
template <class Writer>
void write_file_atomically(const std::string& path, Writer&& write) {
  AtomicFile file(path);
  write(file.stream());
  file.commit();
}

}  // namespace lb::datasets
