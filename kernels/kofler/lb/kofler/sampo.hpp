#pragma once
//! SAMPO on the GPU (sampo.cu): the original's kernels (kSampoKernels of them a step, below)
//! over any layout of the agent record, and the Engine that runs them on a double buffer. A run
//! is cfg.steps hourly steps from a snapshot of the population, one CUDA graph. The Engine is
//! instantiated in sampo.cu for every mapping of SampoLayouts, which the benchmarks' dispatch
//! reaches; the harness variant is benches/kofler/sampo_bench.cpp's.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lb/kofler/sampo_reference.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/device_storage.hpp"
#include "lb/layout/program_layouts.hpp"
#include "lb/layout/split.hpp"

namespace lb::kofler::sampo {

//! Kernels per step: larval-density reduction, female-count reduction, killAgents,
//! updateAgents, compaction (count survivors per block, scan the block counts, scatter the
//! survivors in order) and createEggs.
inline constexpr int kSampoKernels = 8;

//! Tiles the tiled-ct layout instantiates, and the compile-time partitions (split-ct). The
//! tiles above 12K are Fig. 1's claim ("bigger than 12 K it also outperforms the SoA
//! layout"), judged compiled against compiled SoA: run-time tile code costs more than the gap.
inline constexpr std::size_t kCompileTimeTiles[] = {8, 32, 128, 16384, 32768, 65536};
inline constexpr const char* kManualPartition = "manual";      //!< the original's three structs
inline constexpr const char* kByKernelPartition = "by-kernel";  //!< fields grouped by the kernels reading them

//! The original's manual layout: struct Agent (6 fields), AgentState (2), AgentAge (4).
struct ManualSplit {
  static constexpr std::string_view name = kManualPartition;
  template <class Rec>
  using mapping = layout::SplitMapping<
      Rec,
      layout::Cluster<layout::AoS, AvailableEggs, CycleLength, HumanBloodmealCount, Delay, NumEggBatches,
                      OvipositionOrLarvalDelay>,
      layout::Cluster<layout::AoS, Dead, State>,
      layout::Cluster<layout::AoS, AgeInHours, HoursInState, IsFemale, SporogonicDevelopment>>;
};

//! Fields grouped by the kernels that read them (a hand-made KDLG-like split): {state, age}
//! for the two per-agent passes (larval density, kill), {isFemale, development} for the
//! female count, dead alone (kill, update, compaction), the rest for updateAgents only.
struct ByKernelSplit {
  static constexpr std::string_view name = kByKernelPartition;
  template <class Rec>
  using mapping = layout::SplitMapping<
      Rec, layout::Cluster<layout::AoS, State, AgeInHours>,
      layout::Cluster<layout::AoS, IsFemale, SporogonicDevelopment>, layout::Cluster<layout::AoS, Dead>,
      layout::Cluster<layout::AoS, AvailableEggs, CycleLength, HumanBloodmealCount, Delay, NumEggBatches,
                      OvipositionOrLarvalDelay, HoursInState>>;
};

//! What SAMPO compiles for Agent: its tiles and splits besides every run-time mapping.
using SampoLayouts = layout::ProgramLayouts<Agent, decltype(layout::tiles_of<kCompileTimeTiles>()),
                                            layout::LayoutList<ManualSplit, ByKernelSplit>>;

//! A deliberate bug for the fault-injection tests: updateAgents' writes of hoursInState lost.
enum class Fault { none, drop_hours_in_state_write };

//! Frees what cudaMalloc gave.
struct CudaFree {
  void operator()(void* p) const;
};

//! The double-buffered population of one layout, its snapshot and the per-step statistics.
template <class M>
class Engine {
 public:
  // Defined here, the work in allocate(): sampo.cu instantiates what the benchmarks call
  // through member addresses (InstantiateEach), and a constructor has none.
  Engine(const M& mapping, const Config& cfg) : cfg_(cfg), snapshot_(mapping) { allocate(mapping); }
  ~Engine() {
    if (graph_) cudaGraphExecDestroy(graph_);
  }

  //! The population every run starts from (not timed), laid out on the device.
  void load_snapshot(const Population& pop);
  //! Fills both buffers and the statistics with 0xFF bytes.
  void poison(cudaStream_t stream);
  //! Restores the snapshot and zeroes the statistics before a run.
  void prepare(cudaStream_t stream);
  //! Records enqueue()'s launches once as a CUDA graph, so a run is one graph launch rather
  //! than 8 * steps launches, each with its own latency (the views and pointers never change).
  void capture(Fault fault);
  //! One run: the captured graph, on `stream`.
  void launch(cudaStream_t stream);
  //! cfg.steps hourly steps starting at cfg.warmup_hours, launched on `stream`.
  void enqueue(cudaStream_t stream, Fault fault);
  //! The statistics of every step of the last run (and the next population's size).
  std::vector<StepStats> stats(cudaStream_t stream) const;
  //! The population after the last run (its size from the stats), gathered on the device.
  Population population(cudaStream_t stream) const;
  //! Device bytes: both buffers and the snapshot.
  double footprint() const;
  //! The constructor's work: the double buffer, the statistics, the block counts and the
  //! mortality table.
  void allocate(const M& mapping);

 private:
  Config cfg_;
  std::unique_ptr<layout::DeviceStorage<M>> buffers_[2];
  layout::DeviceStorage<M> snapshot_;
  u32 snapshot_size_ = 0;
  int blocks_ = 0;
  std::unique_ptr<StepStats, CudaFree> stats_;
  std::unique_ptr<u32, CudaFree> block_counts_;
  std::unique_ptr<MortalityTable, CudaFree> table_;
  cudaGraphExec_t graph_ = nullptr;
};

//! The population after cfg.warmup_hours from the initial eggs, simulated on the GPU with AoS
//! (the one canonical layout, so every layout starts from the same bytes).
Population gpu_warmup(const Config& cfg);

//! Device bytes of a variant: three agent arrays (two for the double buffer, the snapshot) and
//! the stage its snapshot and population pass through (lb/layout/device_records.hpp).
double device_bytes(const Config& cfg);

}  // namespace lb::kofler::sampo
