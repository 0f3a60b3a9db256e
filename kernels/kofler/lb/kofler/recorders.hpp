#pragma once
//! The recorders behind record_program (recorded.hpp), one per program, each in
//! kernels/kofler/<program>_recording.cpp: every kernel of the program that touches its record
//! runs its GPU body (lb/kofler/*_body.hpp, sampo_bodies.hpp) on the host over a RecordingView
//! of an AoS host array, whole blocks in the GPU's thread order where shared-memory phases
//! exist, at the small size stated here. Each *_recorded_run also returns what the bodies
//! computed, so the tests can hold it against the program's CPU reference. Host only.

#include <cstddef>
#include <vector>

#include "lb/kofler/lavamd.hpp"
#include "lb/kofler/nbody_reference.hpp"
#include "lb/kofler/recorded.hpp"
#include "lb/kofler/sort.hpp"

namespace lb::kofler {

//! N-body: one step of kNBodyRecordedBodies bodies (two tiles), every block of the step.
inline constexpr std::size_t kNBodyRecordedBodies = 512;
struct NBodyRecordedRun {
  RecordedProgram program;
  NBodyParams params;  //!< steps = 1
  NBodyState initial, after;
};
NBodyRecordedRun nbody_recorded_run();

//! Bitonic sort of kBitonicRecordedRecords records: exactly one launch of each of the three
//! kernels (sort_chunks, merge_global of stride 1024, merge_shared of stage 2048), all blocks.
inline constexpr std::size_t kBitonicRecordedRecords = 2 * kSortChunk;
struct BitonicRecordedRun {
  RecordedProgram program;
  std::vector<SortPlain> output;
};
BitonicRecordedRun bitonic_recorded_run();

//! BlackScholes: the timed kernel over kBlackScholesRecordedOptions options (one block).
inline constexpr std::size_t kBlackScholesRecordedOptions = 256;
struct BlackScholesRecordedRun {
  RecordedProgram program;
  std::vector<float> call, put;
};
BlackScholesRecordedRun blackscholes_recorded_run();

//! LavaMD in float (the precision Kofler et al. ported) on kLavaRecordedBoxes1d³ boxes, every
//! box's block.
inline constexpr int kLavaRecordedBoxes1d = 2;
struct LavaRecordedRun {
  RecordedProgram program;
  LavaInput input;  //!< rounded to float, as the run saw it
  std::vector<FourPlain> fv;
};
LavaRecordedRun lavamd_recorded_run();

RecordedProgram record_nbody();
RecordedProgram record_bitonic();
RecordedProgram record_blackscholes();
RecordedProgram record_lavamd();
RecordedProgram record_sampo();  // sampo_recording.hpp has its run

}  // namespace lb::kofler
