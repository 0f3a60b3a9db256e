// The table of every recordable program: Kofler et al.'s (lb/kofler/recorded.hpp) and the
// other papers' (kernels/recorded/<program>_recording.cpp), each listed here once.

#include "lb/recorded/programs.hpp"

#include <stdexcept>
#include <utility>

#include "lb/kofler/recorded.hpp"

namespace lb::recorded {

namespace {

using Recorder = RecordedProgram (*)();

//! The other papers' programs, name -> recorder, in the papers' order. A program joins by one
//! line here.
const std::vector<std::pair<std::string_view, Recorder>>& others() {
  static const std::vector<std::pair<std::string_view, Recorder>> table = {
      {"idw-naive", [] { return idw_recorded_run(IdwBody::naive).program; }},
      {"idw-tiled", [] { return idw_recorded_run(IdwBody::tiled).program; }},
      {"kriging", [] { return kriging_recorded_run().program; }},
      {"synthetic", [] { return synthetic_recorded_run().program; }},
      {"bfs", [] { return bfs_recorded_run().program; }},
      {"traffic-cars", [] { return traffic_recorded_run().cars; }},
      {"traffic-cells", [] { return traffic_recorded_run().cells; }},
  };
  return table;
}

}  // namespace

std::vector<std::string> recordable_programs() {
  std::vector<std::string> names = kofler::recordable_programs();
  for (const auto& [name, recorder] : others()) names.emplace_back(name);
  return names;
}

RecordedProgram record_program(std::string_view program) {
  for (const std::string& name : kofler::recordable_programs())
    if (name == program) return kofler::record_program(program);
  for (const auto& [name, recorder] : others())
    if (name == program) return recorder();
  std::string known;
  for (const std::string& name : recordable_programs()) known += (known.empty() ? "" : ", ") + name;
  throw std::invalid_argument("no recorded bodies for program '" + std::string(program) + "'; recordable: " + known);
}

}  // namespace lb::recorded
