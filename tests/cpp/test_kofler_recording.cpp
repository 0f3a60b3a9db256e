// The Kofler programs' bodies under access recording (lb/kofler/recorded.hpp, recorders.hpp,
// docs/kdlg.md "The five programs"): for each program, (a) the recorded bytes against what its
// bench's Work declares (a missed field access breaks the equality), (b) what the same bodies
// computed on the host against the program's CPU reference, (c) its KDLG partition with
// ε = 128. SAMPO's KDLG is test_kdlg_sampo.cpp's; its bytes and results are here.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "lb/kofler/blackscholes_reference.hpp"
#include "lb/kofler/nbody_body.hpp"
#include "lb/kofler/recorders.hpp"
#include "lb/kofler/sampo_recording.hpp"
#include "lb/layout/kdlg.hpp"

namespace lb::kofler {
namespace {

using layout::Access;
using layout::AccessKind;
using layout::KernelTrace;

//! What a trace moved: every load's and store's bytes, and the distinct bytes loaded and
//! stored, of the record's fields and of other memory.
struct Bytes {
  std::size_t loaded = 0, stored = 0;
  std::size_t distinct_record_loaded = 0, distinct_record_stored = 0, distinct_other_loaded = 0;
};

Bytes bytes_of(const std::vector<KernelTrace>& kernels) {
  Bytes b;
  std::set<std::uintptr_t> record_loaded, record_stored, other_loaded;
  for (const KernelTrace& k : kernels)
    for (const Access& a : k.accesses) {
      const bool load = a.kind == AccessKind::load, other = a.field == layout::kOtherMemory;
      (load ? b.loaded : b.stored) += a.bytes;
      auto& distinct = other ? other_loaded : load ? record_loaded : record_stored;
      for (std::size_t i = 0; i < a.bytes; ++i) distinct.insert(a.address + i);
    }
  b.distinct_record_loaded = record_loaded.size();
  b.distinct_record_stored = record_stored.size();
  b.distinct_other_loaded = other_loaded.size();
  return b;
}

layout::KdlgPartition partition_of(const RecordedProgram& p, layout::Kdlg* g = nullptr) {
  const layout::Kdlg kdlg = layout::program_kdlg(p.field_bytes, p.kernels);
  if (g) *g = kdlg;
  return layout::kdlg_partition(kdlg);
}

//! The largest finite δ of the program (the partition's closest call).
std::uint64_t largest_finite_delta(const layout::Kdlg& g) {
  std::uint64_t m = 0;
  for (std::size_t f = 0; f < g.field_count(); ++f)
    for (std::size_t h = f + 1; h < g.field_count(); ++h)
      if (g.delta(f, h) != layout::kInfiniteDistance) m = std::max(m, g.delta(f, h));
  return m;
}

TEST(KoflerRecorded, TheTableHoldsTheFivePrograms) {
  EXPECT_EQ(recordable_programs(), (std::vector<std::string>{"bitonic", "blackscholes", "lavamd", "nbody", "sampo"}));
  try {
    record_program("mandelbrot");
    ADD_FAILURE() << "no error for an unknown program";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("recordable: bitonic, blackscholes, lavamd, nbody, sampo"), std::string::npos)
        << e.what();
  }
  const RecordedProgram p = record_program("blackscholes");  // through the table
  EXPECT_EQ(p.program, "blackscholes");
  EXPECT_EQ(p.field_names.size(), p.field_bytes.size());
  EXPECT_FALSE(p.problem.empty());
}

TEST(KoflerRecorded, NBodyBytesResultAndPartition) {
  const NBodyRecordedRun run = nbody_recorded_run();
  const std::size_t n = kNBodyRecordedBodies, blocks = nbody_blocks(n);
  ASSERT_EQ(run.program.kernels.size(), 1u);
  // (a) nbody_bench's Work: per step n · 2 · 16 bytes read and written, each body's record
  // once (the staging's re-reads of pos hit the caches). Recorded: the distinct record bytes
  // loaded and stored are exactly that; the loads in all: every thread's own pos (blocks ·
  // kTileBodies), every block's staging of all n, each body's vel.
  const Bytes b = bytes_of(run.program.kernels);
  EXPECT_EQ(b.distinct_record_loaded, n * 2 * sizeof(float4));
  EXPECT_EQ(b.distinct_record_stored, n * 2 * sizeof(float4));
  EXPECT_EQ(b.loaded, (blocks * kTileBodies + blocks * n + n) * sizeof(float4));
  EXPECT_EQ(b.stored, n * 2 * sizeof(float4));
  // (b) the host replay of the kernel's phases is one step of the kernel's float arithmetic.
  const Agreement a = check_nbody(nbody_reference(run.initial, run.params), run.initial, run.after);
  EXPECT_TRUE(a.ok) << a.message;
  // (c) a block stages every body's pos between its threads' own pos and their vel, so the
  // nearest vel of a staged pos is at least a tile of bytes away: pos | vel.
  layout::Kdlg g;
  const auto p = partition_of(run.program, &g);
  EXPECT_EQ(layout::partition_name(p, run.program.field_names), "pos|vel");
  EXPECT_GE(g.delta(0, 1), kTileBodies * sizeof(float4));
  std::printf("nbody (%s): delta(pos, vel) = %llu\n", run.program.problem.c_str(), (unsigned long long)g.delta(0, 1));
}

TEST(KoflerRecorded, BitonicBytesResultAndPartition) {
  const BitonicRecordedRun run = bitonic_recorded_run();
  const std::size_t n = kBitonicRecordedRecords, record = sizeof(SortPlain);
  ASSERT_EQ(run.program.kernels.size(), std::size_t(kBitonicKernels));
  // (a) bitonic_bench's Work: bitonic_global_passes(n) · n · 16 bytes read and as many
  // written; each pass (here one launch of each kernel) loads and stores every record once.
  for (const KernelTrace& k : run.program.kernels) {
    const Bytes b = bytes_of({k});
    EXPECT_EQ(b.loaded, n * record) << k.kernel;
    EXPECT_EQ(b.stored, n * record) << k.kernel;
  }
  const Bytes all = bytes_of(run.program.kernels);
  EXPECT_EQ(all.loaded, bitonic_global_passes(n) * n * record);
  EXPECT_EQ(all.stored, bitonic_global_passes(n) * n * record);
  // (b) the replayed network sorts.
  EXPECT_EQ(check_sorted(run.output, sorted_reference(n)), "");
  // (c) every comparator loads and stores whole records: one cluster.
  layout::Kdlg g;
  const auto p = partition_of(run.program, &g);
  EXPECT_EQ(layout::partition_name(p, run.program.field_names), "key+id+weight+value");
  std::printf("bitonic (%s): largest delta %llu\n", run.program.problem.c_str(),
              (unsigned long long)largest_finite_delta(g));
}

TEST(KoflerRecorded, BlackScholesBytesResultAndPartition) {
  const BlackScholesRecordedRun run = blackscholes_recorded_run();
  const std::size_t n = kBlackScholesRecordedOptions;
  // (a) blackscholes_bench's Work: 12 n read (S, X, T), 8 n written (call, put), exactly.
  const Bytes b = bytes_of(run.program.kernels);
  EXPECT_EQ(b.loaded, 12 * n);
  EXPECT_EQ(b.stored, 8 * n);
  EXPECT_EQ(b.distinct_record_loaded, 12 * n);
  // (b) the body with the host's math against the double reference.
  const Agreement a = check_black_scholes(run.call, run.put, BlackScholesParams{});
  EXPECT_TRUE(a.ok) << a.message;
  // (c) a thread reads its option's three inputs and writes its two outputs back to back: no
  // access is more than the other four fields (16 bytes) from one to any other field, so every
  // δ < 128 and the record stays one cluster. (The preset's inputs|outputs split is the
  // by-hand grouping by direction; the KDLG knows distance only.)
  layout::Kdlg g;
  const auto p = partition_of(run.program, &g);
  EXPECT_EQ(layout::partition_name(p, run.program.field_names), "S+X+T+call+put");
  EXPECT_LE(largest_finite_delta(g), 16u);
  std::printf("blackscholes (%s): largest delta %llu\n", run.program.problem.c_str(),
              (unsigned long long)largest_finite_delta(g));
}

TEST(KoflerRecorded, LavaMDBytesResultAndPartition) {
  const LavaRecordedRun run = lavamd_recorded_run();
  const std::size_t particles = lavamd_boxes(kLavaRecordedBoxes1d) * kParticlesPerBox;
  // (a) lavamd_bench's Work: particles · 5 · 4 bytes read (rv's four fields and qv, each once:
  // the re-reads for every partner box hit the caches), particles · 4 · 4 written (fv once).
  const Bytes b = bytes_of(run.program.kernels);
  EXPECT_EQ(b.distinct_record_loaded + b.distinct_other_loaded, particles * 5 * sizeof(float));
  EXPECT_EQ(b.distinct_record_stored, particles * 4 * sizeof(float));
  EXPECT_EQ(b.stored, particles * 4 * sizeof(float));
  // (b) the replayed blocks against the double reference, in float's tolerance.
  const LavaCheck c = check_forces(run.fv, lavamd_reference(kLavaRecordedBoxes1d, run.input),
                                   LavaPrecision<float>::tolerance);
  EXPECT_EQ(c.problem, "");
  // (c) rv is only ever loaded whole (a particle's four fields together) and fv only stored
  // whole, so every field has the others within 12 bytes: one cluster.
  layout::Kdlg g;
  const auto p = partition_of(run.program, &g);
  EXPECT_EQ(layout::partition_name(p, run.program.field_names), "v+x+y+z");
  EXPECT_LE(largest_finite_delta(g), 12u);
  std::printf("lavamd (%s): largest delta %llu\n", run.program.problem.c_str(),
              (unsigned long long)largest_finite_delta(g));
}

}  // namespace

namespace sampo {
namespace {

TEST(KoflerRecorded, SampoBytesAndResults) {
  const SampoRecordedRun run = sampo_recorded_run();
  const std::size_t n = run.samples.size();
  ASSERT_EQ(n, 9u);
  // The counts, from the samples by hand.
  std::size_t larvae = 0, adults = 0, females = 0, dying = 0;
  for (const Sample& s : run.samples) {
    larvae += s.agent.get<State>() == LARVA;
    adults += s.agent.get<State>() >= IMMATURE;
    females += s.agent.get<State>() >= IMMATURE && s.agent.get<IsFemale>();
  }
  for (const AgentValue& a : run.updated) dying += a.get<Dead>() != 0;
  EXPECT_EQ(dying, 1u) << "agent 8 is the one killAgents kills";
  const std::size_t survivors = n - dying, eggs = run.stats.eggs_laid, record = sizeof(AgentValue);
  // (a) per kernel, sampo_bench's Work terms at this population (they are exact for these
  // kernels; updateAgents' term assumes no transitions, which every sample makes: its fields
  // are test_kdlg_sampo.cpp's).
  struct Want {
    const char* kernel;
    std::size_t loaded, stored;
  };
  const Want want[] = {{"larval_density", 4 * n + 4 * larvae, 0},
                       {"female_count", 4 * n + 4 * adults + 4 * females, 0},
                       {"kill_agents", 8 * n, 4 * dying},
                       {"count_survivors", 4 * n, 0},
                       {"scatter_survivors", 4 * n + record * survivors, record * survivors},
                       {"create_eggs", 0, record * eggs}};
  for (const Want& w : want) {
    const auto k = std::find_if(run.program.kernels.begin(), run.program.kernels.end(),
                                [&](const KernelTrace& t) { return t.kernel == w.kernel; });
    ASSERT_NE(k, run.program.kernels.end()) << w.kernel;
    const Bytes b = bytes_of({*k});
    EXPECT_EQ(b.loaded, w.loaded) << w.kernel;
    EXPECT_EQ(b.stored, w.stored) << w.kernel;
  }
  EXPECT_GT(eggs, 0u) << "the gravid agent lays";
  // (b) the recorded update is update_agent's plain one, agent for agent and event for event;
  // the compaction keeps the new eggs, then the survivors in order.
  const Constants c;
  for (std::size_t k = 0; k < n; ++k) {
    const Sample& s = run.samples[k];
    AgentValue want_agent = s.agent;
    UpdateEvents want_events;
    if (k + 1 < n) want_events = update_agent(PlainRef{want_agent}, c, run.cfg, s.hour, s.index, s.biomass);
    else want_agent.get<Dead>() = 1;
    EXPECT_EQ(std::memcmp(&run.updated[k], &want_agent, sizeof want_agent), 0) << "agent " << k;
    EXPECT_EQ(std::memcmp(&run.events[k], &want_events, sizeof want_events), 0) << "agent " << k;
  }
  ASSERT_EQ(run.next.size(), eggs + survivors);
  for (std::size_t k = 0; k < survivors; ++k)
    EXPECT_EQ(std::memcmp(&run.next[eggs + k], &run.updated[k], sizeof(AgentValue)), 0) << "survivor " << k;
  EXPECT_EQ(run.next[0].get<State>(), u32(EGG));
}

}  // namespace
}  // namespace sampo
}  // namespace lb::kofler
