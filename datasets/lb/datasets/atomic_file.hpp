#pragma once
//! Output files that appear whole or not at all.
//!
//! A path given as an output is resolved first: symlinks are followed, so the file a link
//! names is replaced (in its own folder) and the link stays. The new content goes to a
//! unique temporary file (mkstemp, ".<name>.XXXXXX" next to the resolved target, so the
//! rename cannot cross file systems), which takes the existing file's mode, and is renamed
//! into place on commit. A failure, an exception before commit, SIGINT or SIGTERM removes
//! the temporary file, so no half-written file is ever left behind.
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

class AtomicFile {
 public:
  //! Resolves and checks the path, creates the temporary file; throws InputError.
  explicit AtomicFile(const OutputPath& out);
  explicit AtomicFile(const std::string& path) : AtomicFile(OutputPath{"output", path}) {}
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  std::ofstream& stream() { return out_; }
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
  std::ofstream out_;
  int registry_slot_ = -1;
  bool finished_ = false, committed_ = false;
};

//! Several outputs of one command, landing all or none: every path is checked (check_outputs)
//! and every temporary file created at construction, before any computing; commit() finishes
//! every file and renames them only when all were written. (The renames themselves are
//! separate system calls: one failing after another succeeded, which the checks make
//! unlikely, is reported.)
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
