#pragma once
//! Every paper's programs under access recording (issue 39, docs/advisor.md "Beyond the
//! paper"): Kofler et al.'s five (lb/kofler/recorded.hpp) and the other papers' records, each
//! program's own kernel bodies run on the host over recording views (lb/layout/recording.hpp,
//! lb/layout/inner_recording.hpp) at a small, stated problem size. `layoutbench advise` takes
//! any of them. Each *_recorded_run also returns what the bodies computed, so the tests hold
//! it against the program's CPU reference. Host only.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lb/layout/recorded_program.hpp"

namespace lb::recorded {

using layout::RecordedProgram;

//! Every recordable program, Kofler's first (as lb::kofler::recordable_programs lists them),
//! then the others in the papers' order: idw-naive, idw-tiled, kriging, synthetic, bfs,
//! traffic-cars, traffic-cells.
std::vector<std::string> recordable_programs();

//! Runs `program`'s bodies under recording. Throws std::invalid_argument naming every
//! recordable program when `program` is not one of them.
RecordedProgram record_program(std::string_view program);

// --- the other papers' recorders (kernels/recorded/<program>_recording.cpp) ----------------

//! IDW (Mei & Tian): the point record {x, y, z} in float, data and prediction points recorded
//! under the same field indices. kIdwRecordedPredictions prediction points (one block of
//! kIdwRecordedBlock threads, the benchmarks' block) over kIdwRecordedData data points (two
//! tiles of the tiled version), p = 2.
inline constexpr std::size_t kIdwRecordedData = 512, kIdwRecordedPredictions = 256;
inline constexpr unsigned kIdwRecordedBlock = 256;
enum class IdwBody { naive, tiled };
struct IdwRecordedRun {
  RecordedProgram program;
  std::vector<double> data_x, data_y, data_z, pred_x, pred_y;  //!< the inputs, as float
  std::vector<float> values;                                   //!< the prediction points' z
};
IdwRecordedRun idw_recorded_run(IdwBody body);

//! Kriging (Li & Dong): experiment 4's per-point body (A copied in, B built from the wells,
//! solved, every surface combined), double, on the base case's kKrigingRecordedWells wells
//! and one block (25 x 5) of grid points. The well {x, y} is the record; A, the values, the
//! mesh and the estimates are other memory.
inline constexpr std::size_t kKrigingRecordedWells = 10;
struct KrigingRecordedRun {
  RecordedProgram program;
  std::vector<double> estimates;  //!< surface-major, as the experiments write them
  std::vector<double> expected;   //!< experiment 4's CPU program on the same input
};
KrigingRecordedRun kriging_recorded_run();

//! Springer et al.'s synthetic benchmark: kSyntheticRecordedObjects objects (sizes 32..64 of
//! the benchmark's seed), one thread each in index order.
inline constexpr std::size_t kSyntheticRecordedObjects = 64;
struct SyntheticRecordedRun {
  RecordedProgram program;
  bool output_ok = false;       //!< every element + its object's value, nothing else changed
  std::string output_message;   //!< check_synthetic_output's, where it fails
};
SyntheticRecordedRun synthetic_recorded_run();

//! Frontier BFS over a road-like graph of kBfsRecordedVertices vertices: set_distance, then
//! one relax launch per level (each its own kernel) until a level changes nothing.
inline constexpr std::size_t kBfsRecordedVertices = 256;
struct BfsRecordedRun {
  RecordedProgram program;
  std::vector<int> levels, expected;  //!< the recorded search's, datasets::bfs_levels'
};
BfsRecordedRun bfs_recorded_run();

//! The traffic simulation: one step (every phase, each its own kernel, its objects in id
//! order) on a hand-built torus city of kTrafficRecordedGrid² intersections (lights and yield
//! controllers alternating, some exits to sinks) with kTrafficRecordedCars cars: the first
//! step after kTrafficRecordedWarmup reference steps in which a car leaves (so reactivation
//! runs its body). Cars and cells are recorded into the same traces
//! and each record's KDLG sees the other's accesses as other memory (record_view_of).
inline constexpr std::uint32_t kTrafficRecordedGrid = 4, kTrafficRecordedCars = 64, kTrafficRecordedWarmup = 20;
struct TrafficRecordedRun {
  RecordedProgram cars, cells;
  std::uint64_t checksum = 0, expected = 0;  //!< the state after the step: recorded, reference
};
TrafficRecordedRun traffic_recorded_run();

}  // namespace lb::recorded
