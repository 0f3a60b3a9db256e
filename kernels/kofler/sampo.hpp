#pragma once
//! SAMPO on the GPU (sampo.cu): one variant per layout choice, over the harness's program
//! interface. A run is cfg.steps hourly steps from a snapshot of the population; every step
//! launches the original's kernels (kSampoKernels of them, below) on the chosen layout.

#include <memory>

#include "kofler/layout_choice.hpp"
#include "lb/harness/program.hpp"
#include "sampo_reference.hpp"

namespace lb::kofler::sampo {

//! Kernels per step: larval-density reduction, female-count reduction, killAgents,
//! updateAgents, compaction (count survivors per block, scan the block counts, scatter the
//! survivors in order) and createEggs.
inline constexpr int kSampoKernels = 8;

//! Tiles the tiled-ct layout instantiates, and the compile-time partitions (split-ct).
inline constexpr std::size_t kCompileTimeTiles[] = {8, 32, 128};
inline constexpr const char* kManualPartition = "manual";      //!< the original's three structs
inline constexpr const char* kByKernelPartition = "by-kernel";  //!< fields grouped by the kernels reading them

//! A deliberate bug for the fault-injection tests: updateAgents' writes of hoursInState lost.
enum class Fault { none, drop_hours_in_state_write };

//! The population after cfg.warmup_hours from the initial eggs, simulated on the GPU with AoS
//! (the one canonical layout, so every layout starts from the same bytes).
Population gpu_warmup(const Config& cfg);

//! The variant of `choice`, checked against `expected` (its snapshot is the run's start).
std::unique_ptr<harness::Variant> make_variant(const harness::kofler::LayoutChoice& choice, const Config& cfg,
                                               std::shared_ptr<const ReferenceRun> expected, Fault fault = Fault::none);

//! Device bytes of a variant: three agent arrays (two for the double buffer, the snapshot).
double device_bytes(const Config& cfg);

}  // namespace lb::kofler::sampo
