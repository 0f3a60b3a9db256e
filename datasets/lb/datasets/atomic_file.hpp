#pragma once
//! Output files that appear whole or not at all: written under a temporary name in the
//! same directory (so the rename cannot cross file systems), then renamed into place.
//! A failure (or an exception before commit()) removes the temporary file, so no half-
//! written file is ever left behind, and an existing file at the path stays as it was.

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "lb/datasets/points.hpp"

namespace lb::datasets {

class AtomicFile {
 public:
  //! Opens "<path>.tmp" for writing; throws InputError naming `path` if it cannot.
  explicit AtomicFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp"), out_(tmp_, std::ios::binary) {
    if (!out_) throw InputError(fmt::format("{}: cannot write ({})", path_, std::strerror(errno)));
  }
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile() {
    if (!committed_) discard();
  }

  std::ofstream& stream() { return out_; }
  void write(std::string_view text) { out_.write(text.data(), static_cast<std::streamsize>(text.size())); }
  const std::string& path() const { return path_; }

  //! Flushes, closes and renames the temporary file into place; throws InputError (and
  //! removes the temporary file) if any write failed or the rename fails.
  void commit() {
    out_.flush();
    const bool written = static_cast<bool>(out_);
    out_.close();
    if (!written || out_.fail()) {
      discard();
      throw InputError(fmt::format("{}: write failed", path_));
    }
    std::error_code ec;
    std::filesystem::rename(tmp_, path_, ec);
    if (ec) {
      discard();
      throw InputError(fmt::format("{}: cannot move the finished file into place: {}", path_, ec.message()));
    }
    committed_ = true;
  }

 private:
  void discard() {
    if (out_.is_open()) out_.close();
    std::remove(tmp_.c_str());
  }

  std::string path_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

//! One file, written by `write(std::ostream&)` and committed at once.
template <class Writer>
void write_file_atomically(const std::string& path, Writer&& write) {
  AtomicFile file(path);
  write(file.stream());
  file.commit();
}

}  // namespace lb::datasets
