// The table of recordable Kofler programs: each program's recorder lives beside its kernel
// (<program>_recording.cpp) and is listed here once.

#include "lb/kofler/recorded.hpp"

#include "lb/kofler/recorders.hpp"

#include <stdexcept>
#include <utility>

namespace lb::kofler {

namespace {

using Recorder = RecordedProgram (*)();

//! name → recorder, in name order. A program joins by one line here.
const std::vector<std::pair<std::string_view, Recorder>>& recorders() {
  static const std::vector<std::pair<std::string_view, Recorder>> table = {
      {"bitonic", record_bitonic},
      {"blackscholes", record_blackscholes},
      {"lavamd", record_lavamd},
      {"nbody", record_nbody},
      {"sampo", record_sampo},
  };
  return table;
}

}  // namespace

std::vector<std::string> recordable_programs() {
  std::vector<std::string> names;
  for (const auto& [name, recorder] : recorders()) names.emplace_back(name);
  return names;
}

RecordedProgram record_program(std::string_view program) {
  for (const auto& [name, recorder] : recorders())
    if (name == program) return recorder();
  std::string known;
  for (const auto& [name, recorder] : recorders()) known += (known.empty() ? "" : ", ") + std::string(name);
  throw std::invalid_argument("no recorded bodies for program '" + std::string(program) +
                              "'; recordable: " + (known.empty() ? "none yet" : known));
}

}  // namespace lb::kofler
