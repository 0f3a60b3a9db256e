//! SAMPO's kernels (a CUDA port of the OpenCL original, github klois/SAMPO) over any layout
//! of the agent record, and the engine that launches one step after another on a double buffer
//! (instantiated below for every mapping the benchmarks dispatch to). Every kernel is a grid-stride loop over the population, whose size
//! lives on the device (StepStats::population), so a step needs no host synchronisation; a
//! timed run is one CUDA graph of all its steps' launches (captured in set-up).
//!
//! Which kernel touches which fields (as in the original; Work counts bytes from this):
//!   larval_density  reads state, ageInHours                          (calcL1de)
//!   female_count    reads state, isFemale, sporogonic development    (calcFemales)
//!   kill_agents     reads state, ageInHours; writes dead (the dying)  (killAgents)
//!   update_agents   reads dead; for the living the fields its state needs (all 12 over the
//!                   states), writes those it changes (never isFemale)  (updateAgents)
//!   count_survivors reads dead; scan_blocks: block counts only
//!   scatter         reads dead, copies each survivor's 48 bytes       (oldToNewAgents)
//!   create_eggs     writes the new eggs' 48 bytes                     (initAgents)
//! Egg laying adds to one atomic counter (StepStats::eggs_laid) as in the original; the new
//! eggs are keyed by their index in the next population, the survivors keep their order, so
//! the population is the same, agent for agent, on every layout and on the CPU. The per-agent
//! bodies are sampo_bodies.hpp's (and update_agent), which the host runs under recording.

#include "lb/kofler/sampo.hpp"
#include "lb/kofler/sampo_bodies.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <string>
#include <tuple>

#include "lb/common/cuda_check.hpp"
#include "lb/layout/device_records.cuh"

namespace lb::kofler::sampo {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocks = 1024;  // the largest grid; scan_blocks scans the block counts in one block

//! Blocks per launch: 8 agents a thread at full capacity, at most kBlocks (a small case then
//! launches few blocks, which keeps the GPU tests quick under compute-sanitizer).
int blocks_for(u32 capacity) {
  const u32 per_block = kThreads * 8;
  return int(std::min<u32>(kBlocks, std::max<u32>(1, (capacity + per_block - 1) / per_block)));
}

//! Gives the per-agent bodies references into agent i of a view; `lost_hours` (fault
//! injection only) redirects hoursInState to a scratch value, losing its writes.
template <class V>
struct ViewRef {
  V v;
  std::size_t i;
  float* lost_hours;
  template <class Tag>
  __device__ auto& get() const {
    if constexpr (std::is_same_v<Tag, HoursInState>)
      if (lost_hours) return *lost_hours;
    return v.template get<Tag>(i);
  }
};

__device__ inline u32 thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline u32 thread_count() { return gridDim.x * blockDim.x; }
//! Adds a per-thread count into a device counter: one atomic per warp.
__device__ inline void add_counter(u32* counter, u32 x) {
  x = __reduce_add_sync(0xffffffffu, x);
  if ((threadIdx.x & 31u) == 0 && x) atomicAdd(counter, x);
}

template <class V>
__global__ void __launch_bounds__(kThreads) larval_density(V v, StepStats* s) {
  const u32 n = s->population;
  u32 eggs = 0, larvae = 0, pupae = 0, days = 0;
  for (u32 i = thread_index(); i < n; i += thread_count()) count_larval_density(v, i, eggs, larvae, pupae, days);
  add_counter(&s->eggs, eggs);
  add_counter(&s->larvae, larvae);
  add_counter(&s->pupae, pupae);
  add_counter(&s->larvae_1day_equiv, days);
}

template <class V>
__global__ void __launch_bounds__(kThreads) female_count(V v, StepStats* s) {
  const u32 n = s->population;
  u32 females = 0, infective = 0;
  for (u32 i = thread_index(); i < n; i += thread_count()) count_female(v, i, females, infective);
  add_counter(&s->females, females);
  add_counter(&s->potentially_infective, infective);
}

template <class V>
__global__ void __launch_bounds__(kThreads) kill_agents(V v, const StepStats* s, const MortalityTable* table,
                                                        Config cfg, u32 hour) {
  const u32 n = s->population, l1de = s->larvae_1day_equiv;
  for (u32 i = thread_index(); i < n; i += thread_count()) kill_agent(v, i, l1de, cfg, *table, hour);
}

template <class V>
__global__ void __launch_bounds__(kThreads) update_agents(V v, StepStats* s, Constants c, Config cfg, u32 hour,
                                                          Fault fault) {
  const u32 n = s->population, biomass = s->larvae_1day_equiv + s->eggs + s->pupae;
  UpdateEvents sum;
  for (u32 i = thread_index(); i < n; i += thread_count()) {
    if (v.template get<Dead>(i)) continue;
    float lost = v.template get<HoursInState>(i);
    const UpdateEvents ev = update_agent(
        ViewRef<V>{v, i, fault == Fault::drop_hours_in_state_write ? &lost : nullptr}, c, cfg, hour, i, biomass);
    sum.eggs_laid += ev.eggs_laid;
    sum.bites += ev.bites;
    sum.infectious_bites += ev.infectious_bites;
    sum.cycles += ev.cycles;
    sum.cycle_hours += ev.cycle_hours;
  }
  add_counter(&s->eggs_laid, sum.eggs_laid);  // the original's atomic egg counter
  add_counter(&s->bites, sum.bites);
  add_counter(&s->infectious_bites, sum.infectious_bites);
  add_counter(&s->cycles, sum.cycles);
  add_counter(&s->cycle_hours, sum.cycle_hours);
}

//! Compaction keeps order: block b owns the b-th contiguous chunk of the population.
__device__ inline void chunk_of_block(u32 n, u32& begin, u32& end) {
  const u32 chunk = (n + gridDim.x - 1) / gridDim.x;
  begin = min(n, blockIdx.x * chunk);
  end = min(n, begin + chunk);
}

template <class V>
__global__ void __launch_bounds__(kThreads) count_survivors(V v, const StepStats* s, u32* block_counts) {
  using Reduce = cub::BlockReduce<u32, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  u32 begin, end, alive = 0;
  chunk_of_block(s->population, begin, end);
  for (u32 i = begin + threadIdx.x; i < end; i += kThreads) alive += agent_alive(v, i);
  const u32 total = Reduce(temp).Sum(alive);
  if (threadIdx.x == 0) block_counts[blockIdx.x] = total;
}

//! One block: block counts -> offsets; survivors, the eggs that fit, the next population.
__global__ void __launch_bounds__(kBlocks) scan_blocks(u32* block_counts, u32 blocks, StepStats* s, u32 capacity) {
  using Scan = cub::BlockScan<u32, kBlocks>;
  __shared__ typename Scan::TempStorage temp;
  u32 offset, survivors;
  Scan(temp).ExclusiveSum(threadIdx.x < blocks ? block_counts[threadIdx.x] : 0u, offset, survivors);
  if (threadIdx.x < blocks) block_counts[threadIdx.x] = offset;
  if (threadIdx.x == 0) {
    const u32 room = capacity - min(capacity, survivors);
    const u32 eggs = min(s->eggs_laid, room);
    s->survivors = survivors;
    s->eggs_dropped = s->eggs_laid - eggs;
    s[1].population = survivors + eggs;
  }
}

template <class V>
__global__ void __launch_bounds__(kThreads) scatter_survivors(V v, V next, const StepStats* s,
                                                              const u32* block_offsets) {
  using Scan = cub::BlockScan<u32, kThreads>;
  __shared__ typename Scan::TempStorage temp;
  u32 begin, end;
  chunk_of_block(s->population, begin, end);
  u32 base = s->eggs_laid - s->eggs_dropped + block_offsets[blockIdx.x];
  for (u32 tile = begin; tile < end; tile += kThreads) {
    const u32 i = tile + threadIdx.x;
    const u32 alive = i < end && agent_alive(v, i);
    u32 position, tile_alive;
    Scan(temp).ExclusiveSum(alive, position, tile_alive);
    if (alive) copy_agent(v, next, i, base + position);
    base += tile_alive;
    __syncthreads();  // temp is reused by the next tile
  }
}

template <class V>
__global__ void __launch_bounds__(kThreads) create_eggs(V next, const StepStats* s, Constants c, Config cfg, u32 hour) {
  const u32 eggs = s->eggs_laid - s->eggs_dropped;
  for (u32 j = thread_index(); j < eggs; j += thread_count()) next.store(j, new_egg(c, cfg, hour, j));
}

template <class T>
T* device_alloc(std::size_t count) {
  void* p = nullptr;
  check(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc (SAMPO)");
  return static_cast<T*>(p);
}

}  // namespace

void CudaFree::operator()(void* p) const { cudaFree(p); }

template <class M>
void Engine<M>::allocate(const M& mapping) {
  for (auto& b : buffers_) b = std::make_unique<layout::DeviceStorage<M>>(mapping);
  blocks_ = blocks_for(cfg_.agent_capacity);
  stats_.reset(device_alloc<StepStats>(cfg_.steps + 1));
  block_counts_.reset(device_alloc<u32>(kBlocks));
  table_.reset(device_alloc<MortalityTable>(1));
  const MortalityTable t = mortality_table();
  check(cudaMemcpy(table_.get(), &t, sizeof t, cudaMemcpyHostToDevice), "cudaMemcpy (mortality table)");
}

template <class M>
void Engine<M>::load_snapshot(const Population& pop) {
  if (pop.size() > cfg_.agent_capacity) throw std::invalid_argument("SAMPO: snapshot exceeds the agent capacity");
  // Laid out on the device: only the population crosses the bus, not the capacity (6x more
  // at the paper's sizes); zeros beyond it, as a host-built layout has.
  layout::fill_blobs(snapshot_.view(), 0, nullptr);
  layout::upload_records(snapshot_.view(), pop.data(), pop.size(), nullptr);
  snapshot_size_ = u32(pop.size());
}

template <class M>
void Engine<M>::poison(cudaStream_t stream) {
  for (auto& b : buffers_) layout::fill_blobs(b->view(), 0xFF, stream);
  check(cudaMemsetAsync(stats_.get(), 0xFF, (cfg_.steps + 1) * sizeof(StepStats), stream), "cudaMemset (poison)");
}

template <class M>
void Engine<M>::prepare(cudaStream_t stream) {
  const auto from = snapshot_.view(), to = buffers_[0]->view();
  for (std::size_t b = 0; b < M::blob_count; ++b)
    check(cudaMemcpyAsync(to.blobs[b], from.blobs[b], from.mapping.blob_bytes(b), cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpy (restore snapshot)");
  StepStats first{};
  first.population = snapshot_size_;
  check(cudaMemsetAsync(stats_.get(), 0, (cfg_.steps + 1) * sizeof(StepStats), stream), "cudaMemset (stats)");
  check(cudaMemcpyAsync(stats_.get(), &first, sizeof first, cudaMemcpyHostToDevice, stream), "cudaMemcpy (stats)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (prepare)");  // `first` is on the stack
}

template <class M>
void Engine<M>::capture(Fault fault) {
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate (SAMPO capture)");
  check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture (SAMPO)");
  enqueue(s, fault);
  cudaGraph_t graph = nullptr;
  check(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture (SAMPO)");
  check(cudaGraphInstantiate(&graph_, graph, 0), "cudaGraphInstantiate (SAMPO)");
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

template <class M>
void Engine<M>::launch(cudaStream_t stream) {
  check(cudaGraphLaunch(graph_, stream), "cudaGraphLaunch (SAMPO run)");
}

template <class M>
void Engine<M>::enqueue(cudaStream_t stream, Fault fault) {
  const Constants c;
  for (u32 step = 0; step < cfg_.steps; ++step) {
    const auto v = buffers_[step % 2]->view(), next = buffers_[(step + 1) % 2]->view();
    const u32 hour = cfg_.warmup_hours + step;
    StepStats* s = stats_.get() + step;
    larval_density<<<blocks_, kThreads, 0, stream>>>(v, s);
    female_count<<<blocks_, kThreads, 0, stream>>>(v, s);
    kill_agents<<<blocks_, kThreads, 0, stream>>>(v, s, table_.get(), cfg_, hour);
    update_agents<<<blocks_, kThreads, 0, stream>>>(v, s, c, cfg_, hour, fault);
    count_survivors<<<blocks_, kThreads, 0, stream>>>(v, s, block_counts_.get());
    scan_blocks<<<1, kBlocks, 0, stream>>>(block_counts_.get(), u32(blocks_), s, cfg_.agent_capacity);
    scatter_survivors<<<blocks_, kThreads, 0, stream>>>(v, next, s, block_counts_.get());
    create_eggs<<<blocks_, kThreads, 0, stream>>>(next, s, c, cfg_, hour);
  }
  check(cudaGetLastError(), "SAMPO kernel launch");
}

template <class M>
std::vector<StepStats> Engine<M>::stats(cudaStream_t stream) const {
  std::vector<StepStats> out(cfg_.steps + 1);
  check(cudaMemcpyAsync(out.data(), stats_.get(), out.size() * sizeof(StepStats), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpy (stats)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (stats)");
  return out;
}

template <class M>
Population Engine<M>::population(cudaStream_t stream) const {
  const auto all = stats(stream);
  const u32 n = std::min(all.back().population, cfg_.agent_capacity);
  Population pop(n);
  layout::download_records(buffers_[cfg_.steps % 2]->view(), pop.data(), n, stream);
  return pop;
}

template <class M>
double Engine<M>::footprint() const {
  return 3.0 * double(layout::footprint_bytes(snapshot_.view().mapping));
}

//! What the benchmarks and tests call for mapping M (instantiated for every mapping of SampoLayouts).
template <class M>
struct EngineEntries {
  static constexpr auto functions =
      std::tuple{&Engine<M>::allocate, &Engine<M>::load_snapshot, &Engine<M>::poison,   &Engine<M>::prepare,
                 &Engine<M>::capture,  &Engine<M>::launch,        &Engine<M>::enqueue,  &Engine<M>::stats,
                 &Engine<M>::population, &Engine<M>::footprint};
};

Population gpu_warmup(const Config& cfg) {
  const Constants c;
  const Population eggs = initial_population(cfg, c);
  if (cfg.warmup_hours == 0) return eggs;
  Config warm = cfg;  // the warm-up is one run of warmup_hours steps from hour 0
  warm.steps = cfg.warmup_hours;
  warm.warmup_hours = 0;
  Engine<layout::AoSMapping<Agent>> engine(layout::AoSMapping<Agent>{cfg.agent_capacity}, warm);
  engine.load_snapshot(eggs);
  engine.prepare(nullptr);
  engine.enqueue(nullptr, Fault::none);
  return engine.population(nullptr);
}

double device_bytes(const Config& cfg) {
  return 3.0 * double(cfg.agent_capacity) * sizeof(AgentValue) + double(layout::kRecordStageBytes);
}

}  // namespace lb::kofler::sampo

template struct lb::layout::InstantiateEach<lb::kofler::sampo::EngineEntries, lb::kofler::sampo::SampoLayouts::mappings>;
