#pragma once
//! The Kofler programs whose bodies run on the host under access recording
//! (lb/layout/recording.hpp): each records its kernels at a small, stated problem size, and
//! the KDLG (lb/layout/kdlg.hpp) and the advisor take the traces from here. Host only.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "lb/layout/access_trace.hpp"

namespace lb::kofler {

//! One program's recorded kernels: the record's fields (names as its preset's partitions name
//! them, σ in bytes, record order) and one trace per kernel, in the order the program launches
//! them. `problem` states what was replayed ("256 bodies, one block of 256 threads, 1 step").
struct RecordedProgram {
  std::string program;
  std::vector<std::string> field_names;
  std::vector<std::size_t> field_bytes;
  std::vector<layout::KernelTrace> kernels;
  std::string problem;
};

//! The programs record_program knows, in name order.
std::vector<std::string> recordable_programs();

//! Runs `program`'s bodies under recording. Throws std::invalid_argument naming the
//! recordable programs when `program` is not one of them.
RecordedProgram record_program(std::string_view program);

}  // namespace lb::kofler
