#pragma once
//! What the Kofler programs' GPU tests share: every layout kind a program compiles, the
//! method's layouts made from the program's recorded accesses and a small hand-written
//! decision tree, and one validated run of a variant as the harness does it.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "kofler/layout_choice.hpp"
#include "lb/layout/decision_tree.hpp"
#include "lb/common/cuda_check.hpp"
#include "lb/harness/program.hpp"

#include "gpu_test_scope.hpp"

namespace lb::testing {

//! aos, soa, run-time tiles (powers of two and not), the compile-time tiles `ct_tiles`, and
//! split / split-ct of `partition` (two clusters, each AoS: `first_cluster` fields, then the rest);
//! those of LB_GPU_TEST_LAYOUTS when it is set (gpu_test_scope.hpp).
inline std::vector<benches::kofler::LayoutChoice> kofler_layouts(const std::vector<std::size_t>& ct_tiles,
                                                                 const std::string& partition, std::size_t fields,
                                                                 std::size_t first_cluster) {
  using benches::kofler::LayoutChoice;
  namespace kind = layout::kind;
  std::vector<LayoutChoice> out = {{kind::Aos{}}, {kind::Soa{}}};
  for (std::size_t t : {2, 3, 64, 4096}) out.push_back({kind::Tiled{t}});
  for (std::size_t t : ct_tiles) out.push_back({kind::TiledCt{t}});
  layout::FieldPartition p;
  for (std::size_t f = 0; f < fields; ++f) p.cluster_of_field.push_back(f < first_cluster ? 0 : 1);
  p.clusters = {{}, {}};
  out.push_back({kind::Split{{partition, p}}});
  out.push_back({kind::SplitCt{{partition, p}}});
  return layouts_under_test(std::move(out), [](const LayoutChoice& c) { return c.name(); });
}

//! A small hand-written decision tree over the Kofler records' bytes, given to the planners as
//! --kofler-tree gives one (the suite's tree input), with every kind of cluster layout: SoA to
//! 4 B, tiles of 4 records to 16 B, of 3 records (not a power of two) to 40 B, of 64 records
//! beyond.
inline harness::Overrides with_test_tree() {
  static const harness::Overrides overrides = [] {
    // one file per process: ctest runs the tests side by side
    const auto path = std::filesystem::temp_directory_path() /
                      ("lb_kofler_gpu_test_tree." + std::to_string(::getpid()) + ".json");
    std::ofstream(path) << R"({"format": "layoutbench-kofler-tree/1", "gpu": {"name": "any", "uuid": "any"},
      "feature": "cluster_bytes", "tile_unit": "records",
      "intervals": [{"from_bytes": 1, "to_bytes": 4, "class": "soa"},
                    {"from_bytes": 5, "to_bytes": 16, "class": "tiled:4"},
                    {"from_bytes": 17, "to_bytes": 40, "class": "tiled:3"},
                    {"from_bytes": 41, "to_bytes": null, "class": "tiled:64"}]})";
    harness::Overrides o;
    o.inputs[benches::kofler::kTreeInput] = path.string();
    benches::kofler::decision_tree(o);  // read once per process: the file is not needed after
    std::filesystem::remove(path);
    return o;
  }();
  return overrides;
}

//! `layouts` and then the method's kdlg, tiled-tree and kdlg-tree of `program` (fields `names`
//! of `bytes` bytes) as its planner makes them: the partition from its recorded accesses, the
//! classes from with_test_tree(); those of LB_GPU_TEST_LAYOUTS when it is set.
inline std::vector<benches::kofler::LayoutChoice> with_method_layouts(std::vector<benches::kofler::LayoutChoice> layouts,
                                                                      const std::string& program,
                                                                      const std::vector<std::string>& names,
                                                                      const std::vector<std::size_t>& bytes) {
  const auto method = benches::kofler::method_source(program, names, bytes, with_test_tree());
  for (auto& c : layout::method_choices(method.partition(), names, bytes, method.tree)) layouts.push_back(std::move(c));
  return layouts_under_test(std::move(layouts), [](const benches::kofler::LayoutChoice& c) { return c.name(); });
}

//! Set-up, poison, prepare, run (unless `skip_run`), validate: the harness's validated run.
inline harness::Check validated_run(harness::Variant& v, bool skip_run = false) {
  v.setup(nullptr);
  v.poison(nullptr);
  v.prepare(nullptr);
  if (!skip_run) v.run(nullptr);
  check(cudaDeviceSynchronize(), "validated run");
  return v.validate(nullptr);
}

}  // namespace lb::testing
