#pragma once
//! The Kofler programs whose bodies run on the host under access recording
//! (lb/layout/recording.hpp): each records its kernels at a small, stated problem size, and
//! the KDLG (lb/layout/kdlg.hpp) and the advisor take the traces from here. Host only.

#include <string>
#include <string_view>
#include <vector>

#include "lb/layout/recorded_program.hpp"

namespace lb::kofler {

//! One program's recorded kernels (lb/layout/recorded_program.hpp).
using RecordedProgram = layout::RecordedProgram;

//! The programs record_program knows, in name order.
std::vector<std::string> recordable_programs();

//! Runs `program`'s bodies under recording. Throws std::invalid_argument naming the
//! recordable programs when `program` is not one of them.
RecordedProgram record_program(std::string_view program);

}  // namespace lb::kofler
