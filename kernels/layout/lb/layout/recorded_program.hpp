#pragma once
//! One program's kernels recorded on the host (recording.hpp, inner_recording.hpp): what the
//! KDLG (kdlg.hpp) and the advisor (advisor.hpp) take. Host only.

#include <cstddef>
#include <string>
#include <vector>

#include "lb/layout/access_trace.hpp"

namespace lb::layout {

//! One program's recorded kernels: the record's fields (names as its layouts name them, σ in
//! bytes, record order) and one trace per kernel, in the order the program launches them.
//! `problem` states what was replayed ("256 bodies, one block of 256 threads, 1 step");
//! `record` names the record where a program has several ("car"), else is empty.
struct RecordedProgram {
  std::string program;
  std::vector<std::string> field_names;
  std::vector<std::size_t> field_bytes;
  std::vector<KernelTrace> kernels;
  std::string problem;
  std::string record{};  // a default: the Kofler recorders leave it out
};

//! `trace` seen from one record of a program that records several into one trace: the
//! accesses to fields [first, first + count) as fields 0 .. count - 1, every other access
//! (another record's field, or other memory) as kOtherMemory. So each record gets its own
//! KDLG, the others' bytes still counting towards its distances.
inline std::vector<Access> record_view_of(const std::vector<Access>& trace, std::size_t first, std::size_t count) {
  std::vector<Access> out(trace);
  for (Access& a : out) a.field = a.field != kOtherMemory && a.field >= first && a.field - first < count ? a.field - first : kOtherMemory;
  return out;
}

}  // namespace lb::layout
