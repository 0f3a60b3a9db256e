// The other papers' programs under access recording (lb/recorded/programs.hpp, docs/advisor.md
// "Beyond the paper"): for each, (a) what its bodies computed on the host against the
// program's CPU reference (so the recording ran the program), (b) its KDLG against δ worked
// out by hand from the order of the body's accesses (IDW's point, the synthetic object,
// kriging's well) or against what the kernels' shapes imply (BFS, traffic), and the table of
// every recordable program.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "lb/datasets/points.hpp"
#include "lb/idw/reference.hpp"
#include "lb/inner/synthetic.hpp"
#include "lb/layout/advisor.hpp"
#include "lb/layout/inner_recording.hpp"
#include "lb/layout/kdlg.hpp"
#include "lb/recorded/programs.hpp"

namespace lb::recorded {
namespace {

using layout::kInfiniteDistance;

struct Kdlg {
  layout::Kdlg g;
  std::string partition;
  std::uint64_t delta(const RecordedProgram& p, const std::string& a, const std::string& b) const {
    const auto index = [&](const std::string& name) {
      const auto it = std::find(p.field_names.begin(), p.field_names.end(), name);
      if (it == p.field_names.end()) throw std::invalid_argument("no field " + name);
      return std::size_t(it - p.field_names.begin());
    };
    return g.delta(index(a), index(b));
  }
};

Kdlg kdlg_of(const RecordedProgram& p) {
  Kdlg k{layout::program_kdlg(p.field_bytes, p.kernels), {}};
  k.partition = layout::partition_name(layout::kdlg_partition(k.g), p.field_names);
  return k;
}

TEST(RecordedPrograms, TheTableHoldsEveryPapersProgramsAndAnUnknownOneListsThem) {
  const std::vector<std::string> all = {"bitonic",   "blackscholes", "lavamd",    "nbody", "sampo",        "idw-naive",
                                        "idw-tiled", "kriging",      "synthetic", "bfs",   "traffic-cars", "traffic-cells"};
  EXPECT_EQ(recordable_programs(), all);
  try {
    record_program("mandelbrot");
    ADD_FAILURE() << "no error for an unknown program";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "no recorded bodies for program 'mandelbrot'; recordable: bitonic, blackscholes, lavamd, nbody, sampo, "
              "idw-naive, idw-tiled, kriging, synthetic, bfs, traffic-cars, traffic-cells");
  }
  const RecordedProgram nbody = record_program("nbody");  // Kofler's through the same table
  EXPECT_EQ(nbody.program, "nbody");
  EXPECT_EQ(kdlg_of(nbody).partition, "pos|vel");
}

//! The IDW bodies computed the interpolation: every prediction point against the double
//! reference on the same (float) inputs.
void expect_idw_values(const IdwRecordedRun& run) {
  datasets::PointSet data, pred;
  data.x = run.data_x, data.y = run.data_y, data.z = run.data_z;
  pred.x = run.pred_x, pred.y = run.pred_y, pred.z.assign(run.pred_x.size(), 0.0);
  std::vector<std::size_t> all(pred.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const std::vector<double> expected = idw::reference_values(data, pred, all, 2.0);
  const double tolerance = idw::tolerance(idw::Precision::f32, data.size());
  ASSERT_EQ(run.values.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(run.values[i], expected[i], tolerance * std::abs(expected[i])) << "prediction point " << i;
}

// The naive body, thread i: pred x_i, y_i, z_i (a whole-record load), then every data point's
// x_j, y_j, z_j, then the store of pred z_i. Each x is followed by its y (4 B) and each z
// preceded by its y: δ(x, y) = 4. z ends at 8 from a y: the store of pred z_i, after data z_511
// (4) and itself (4). x and z: data z_j and the next x are 4 apart, but the store of the last
// thread's z is 12 from the last x before it (y_511, z_511, itself) with nothing after it.
TEST(RecordedPrograms, IdwNaiveKeepsThePointWholeAtDeltasWorkedOutByHand) {
  const IdwRecordedRun run = idw_recorded_run(IdwBody::naive);
  expect_idw_values(run);
  const Kdlg k = kdlg_of(run.program);
  EXPECT_EQ(run.program.field_bytes, (std::vector<std::size_t>{4, 4, 4}));
  EXPECT_EQ(k.delta(run.program, "x", "y"), 4u);
  EXPECT_EQ(k.delta(run.program, "y", "z"), 8u);
  EXPECT_EQ(k.delta(run.program, "x", "z"), 12u);
  EXPECT_EQ(k.partition, "x+y+z");
}

// The tiled kernel, one block of 256 threads: every thread's pred x, y, z, then two tiles of
// staged data points (x, y, z each), then the 256 stores of pred z, the last. x and y stay 4
// apart; thread t's store is 4 (t + 1) bytes of stores after data z_511, which follows y_511
// (4) and x_511 (8), and nothing follows the last store: δ(y, z) = 4·256 + 4 = 1028 and
// δ(x, z) = 1032. z leaves the cluster: x+y | z, the paper's Hybrid split.
TEST(RecordedPrograms, IdwTiledSplitsZOffAtDeltasWorkedOutByHand) {
  const IdwRecordedRun run = idw_recorded_run(IdwBody::tiled);
  expect_idw_values(run);
  ASSERT_EQ(kIdwRecordedPredictions, 256u);
  ASSERT_EQ(kIdwRecordedBlock, 256u);
  const Kdlg k = kdlg_of(run.program);
  EXPECT_EQ(k.delta(run.program, "x", "y"), 4u);
  EXPECT_EQ(k.delta(run.program, "y", "z"), 4u * 256 + 4);
  EXPECT_EQ(k.delta(run.program, "x", "z"), 4u * 256 + 8);
  EXPECT_EQ(k.partition, "x+y|z");
}

// Experiment 4's thread: the mesh's x and y, A (121 doubles), then x_j and y_j of each well in
// turn (8 B each), then the values: δ(x, y) = 8, one cluster of 16 B.
TEST(RecordedPrograms, KrigingReadsEachWellsXAndYTogether) {
  const KrigingRecordedRun run = kriging_recorded_run();
  ASSERT_EQ(run.estimates.size(), run.expected.size());
  for (std::size_t k = 0; k < run.expected.size(); ++k)
    EXPECT_NEAR(run.estimates[k], run.expected[k], 1e-12 * std::max(1.0, std::abs(run.expected[k]))) << k;
  const Kdlg k = kdlg_of(run.program);
  EXPECT_EQ(run.program.field_bytes, (std::vector<std::size_t>{8, 8}));
  EXPECT_EQ(k.delta(run.program, "x", "y"), 8u);
  EXPECT_EQ(k.partition, "x+y");
}

// The synthetic object {value, size, elements[64]} (σ 4, 4, 256). Object i's thread: value,
// size, then element k loaded and stored for k < s_i. Element k's load is 4k + 8 bytes after
// value (size and elements 0..k), and 4 (s - k) + 4 before the next object's value (its own
// store, the rest, the value): the nearer, at most ~2s + 6 in the middle; the last object's
// elements have no value after them, so its last element is 4 s + 4 from its value. For size
// the same with 4k + 4 before and 4 (s - k) + 8 after (value and size of the next), 4 s last.
std::uint64_t middle(std::uint32_t s, std::uint64_t before0, std::uint64_t after0) {
  std::uint64_t worst = 0;
  for (std::uint32_t k = 0; k < s; ++k) worst = std::max(worst, std::min(before0 + 4 * k, after0 + 4 * (s - k)));
  return worst;
}

TEST(RecordedPrograms, SyntheticSplitsTheArrayFromValueAndSizeAtDeltasWorkedOutByHand) {
  const SyntheticRecordedRun run = synthetic_recorded_run();
  EXPECT_TRUE(run.output_ok) << run.output_message;
  const inner::SyntheticInputs in = inner::make_synthetic_inputs(kSyntheticRecordedObjects);
  std::uint64_t value = 4 * std::uint64_t(in.sizes.back()) + 4, size = 4 * std::uint64_t(in.sizes.back());
  for (std::size_t i = 0; i + 1 < in.sizes.size(); ++i) {
    value = std::max(value, middle(in.sizes[i], 8, 4));
    size = std::max(size, middle(in.sizes[i], 4, 8));
  }
  const Kdlg k = kdlg_of(run.program);
  EXPECT_EQ(run.program.field_bytes, (std::vector<std::size_t>{4, 4, 256}));
  EXPECT_EQ(k.delta(run.program, "value", "size"), 4u);
  EXPECT_EQ(k.delta(run.program, "value", "elements"), value);
  EXPECT_EQ(k.delta(run.program, "size", "elements"), size);
  EXPECT_GE(std::min(value, size), 128u);  // the sizes are 32..64: the split below follows
  EXPECT_EQ(k.partition, "value+size|elements");
}

// BFS: set_distance writes every distance and nothing else, so distance is ∞ from the rest
// (a kernel that accesses one field of a pair and not the other); a frontier vertex reads its
// degree, then neighbour k at 8k + 4 bytes from it (neighbours and their distances), at most
// 8·9 − 4 = 68 for the largest degree, 9.
TEST(RecordedPrograms, BfsKeepsTheDistanceApartAndTheDegreeWithTheNeighbours) {
  const BfsRecordedRun run = bfs_recorded_run();
  EXPECT_EQ(run.levels, run.expected);
  const Kdlg k = kdlg_of(run.program);
  EXPECT_EQ(run.program.field_bytes, (std::vector<std::size_t>{4, 4, 36}));
  EXPECT_EQ(k.delta(run.program, "distance", "degree"), kInfiniteDistance);
  EXPECT_EQ(k.delta(run.program, "distance", "neighbours"), kInfiniteDistance);
  EXPECT_LE(k.delta(run.program, "degree", "neighbours"), 68u);
  EXPECT_EQ(k.partition, "distance|degree+neighbours");
  EXPECT_EQ(run.program.kernels.front().kernel, "set_distance");
}

// Traffic: the phases' functions over the recording views advance the state exactly as the
// reference's step does. Each record sees the other's accesses as other memory.
TEST(RecordedPrograms, TrafficStepsAsTheReferenceAndRecordsCarsAndCellsApart) {
  const TrafficRecordedRun run = traffic_recorded_run();
  EXPECT_EQ(run.checksum, run.expected);
  for (const RecordedProgram* p : {&run.cars, &run.cells}) {
    ASSERT_EQ(p->kernels.size(), 7u) << p->program;
    EXPECT_EQ(p->kernels.front().kernel, "lights");
    EXPECT_EQ(p->field_names.size(), p->field_bytes.size());
  }
  EXPECT_EQ(run.cars.field_bytes, (std::vector<std::size_t>{4, 1, 1, 1, 4, 120}));
  EXPECT_EQ(run.cells.field_bytes, (std::vector<std::size_t>{1, 1, 1, 1, 4, 4, 4, 32, 4, 32}));
  // The controllers' phases touch no car; every car phase touches one.
  const auto touches = [](const layout::KernelTrace& t) {
    return std::any_of(t.accesses.begin(), t.accesses.end(), [](const layout::Access& a) { return a.field != layout::kOtherMemory; });
  };
  EXPECT_FALSE(touches(run.cars.kernels[0]));
  EXPECT_FALSE(touches(run.cars.kernels[1]));
  for (std::size_t k = 2; k < 7; ++k) EXPECT_TRUE(touches(run.cars.kernels[k])) << run.cars.kernels[k].kernel;
  // load_car reads position, velocity, max velocity, the path's length and active one after
  // another: they share a cluster. The reactivation phase reads an inactive car's scalars and
  // never its path, so the path is ∞ from each of them (a kernel that accesses one field of a
  // pair and not the other).
  const Kdlg cars = kdlg_of(run.cars);
  EXPECT_EQ(cars.delta(run.cars, "position", "velocity"), 1u);
  for (const char* f : {"position", "velocity", "max_velocity", "active", "path_length"})
    EXPECT_EQ(cars.delta(run.cars, f, "path"), kInfiniteDistance) << f;
  EXPECT_EQ(cars.partition, "position+velocity+max_velocity+active+path_length|path");
  // Cells: each phase touches its own few fields (the controllers occupants, incoming cells and
  // controller limits; claim and resolve the claims alone), so most pairs are ∞; where two
  // fields meet in every phase that reads either (speed and controller limit in limit(); a
  // cell's type and its outgoing cells in next_cell) other cells' fields lie between them. An
  // array stays with its length.
  const Kdlg cells = kdlg_of(run.cells);
  EXPECT_EQ(cells.delta(run.cells, "occupant", "claim"), kInfiniteDistance);
  EXPECT_EQ(cells.partition,
            "speed_limit|type|sink|controller_limit|occupant|claim|incoming_count+incoming|outgoing_count+outgoing");
}

// The length header and the elements of an inner array are two fields of their own; a record
// marked `other` logs nothing as a field; `first_field` shifts the indices.
TEST(InnerRecording, AnArrayIsItsLengthThenItsElementsAndTheIndicesShift) {
  using M = layout::InnerArrayMapping<inner::SyntheticObject, layout::InnerLayout::aos, layout::InnerStrategy::full>;
  static_assert(layout::recorded_field_count<inner::SyntheticObject> == 3);
  EXPECT_EQ(layout::inner_field_bytes<inner::SyntheticObject>(), (std::vector<std::size_t>{4, 4, 256}));
  auto storage = layout::inner_host_storage<M>(layout::ArrayLengths{{2}});
  std::vector<layout::Access> log;
  const layout::InnerRecordingView<M> v(storage.view(), log, 5), other(storage.view(), log, 0, true);
  v.get<inner::Value>(0) = 7;
  v.get<inner::Elements>(0, 1) += v.length<inner::Elements>(0);
  v.set_length<inner::Elements>(0, 1);
  const int seen = other.get<inner::Value>(0);
  EXPECT_EQ(seen, 7);
  EXPECT_EQ(storage.view().get<inner::Elements>(0, 1), 2);
  EXPECT_EQ(storage.view().length<inner::Elements>(0), 1u);
  std::vector<std::size_t> fields;
  for (const layout::Access& a : log) fields.push_back(a.field);
  // value store; the header's load; element 1's load and store; the header's store; other's load
  EXPECT_EQ(fields, (std::vector<std::size_t>{5, 6, 7, 7, 6, layout::kOtherMemory}));
  EXPECT_EQ(layout::record_view_of(log, 6, 2)[1].field, 0u);
  EXPECT_EQ(layout::record_view_of(log, 6, 2)[0].field, layout::kOtherMemory);
}

}  // namespace
}  // namespace lb::recorded
