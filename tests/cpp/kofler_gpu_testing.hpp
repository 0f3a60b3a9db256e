#pragma once
//! What the Kofler programs' GPU tests share: every layout kind a program compiles, and one
//! validated run of a variant as the harness does it.

#include <vector>

#include "kofler/layout_choice.hpp"
#include "lb/common/cuda_check.hpp"
#include "lb/harness/program.hpp"

#include "gpu_test_scope.hpp"

namespace lb::testing {

//! aos, soa, run-time tiles (powers of two and not), the compile-time tiles `ct_tiles`, and
//! split / split-ct of `partition` (two clusters, each AoS: `first_cluster` fields, then the rest);
//! those of LB_GPU_TEST_LAYOUTS when it is set (gpu_test_scope.hpp).
inline std::vector<harness::kofler::LayoutChoice> kofler_layouts(const std::vector<std::size_t>& ct_tiles,
                                                                 const std::string& partition, std::size_t fields,
                                                                 std::size_t first_cluster) {
  using harness::kofler::LayoutChoice;
  std::vector<LayoutChoice> out = {{"aos", 0, {}, {}}, {"soa", 0, {}, {}}};
  for (std::size_t t : {2, 3, 64, 4096}) out.push_back({"tiled", t, {}, {}});
  for (std::size_t t : ct_tiles) out.push_back({"tiled-ct", t, {}, {}});
  layout::FieldPartition p;
  for (std::size_t f = 0; f < fields; ++f) p.cluster_of_field.push_back(f < first_cluster ? 0 : 1);
  p.clusters = {{}, {}};
  out.push_back({"split", 0, partition, p});
  out.push_back({"split-ct", 0, partition, p});
  return layouts_under_test(std::move(out), [](const LayoutChoice& c) { return c.layout; });
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
