// Decision tree files (`advise --tree`, `plan --kofler-tree`) through read_decision_tree, then
// what the planner asks of a tree it read: intervals contiguous from 1 B to no end, each class
// aos, soa or a tile the training has (1 to kMaxTreeTile records), class_for at every edge.

#include "fuzz_support.hpp"
#include "lb/layout/decision_tree.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using lb::layout::ClusterLayout;
  using lb::layout::DecisionTree;
  static lb::fuzz::InputFile file;
  const std::string& path = file.write(data, size);
  lb::fuzz::expect_clean<std::invalid_argument>(path, [&] {
    const DecisionTree t = lb::layout::read_decision_tree(path);
    LB_FUZZ_CHECK(t.source == path && !t.intervals.empty());
    LB_FUZZ_CHECK(t.intervals.front().from_bytes == 1 && t.intervals.back().to_bytes == DecisionTree::kUnbounded);
    for (std::size_t k = 0; k < t.intervals.size(); ++k) {
      const DecisionTree::Interval& i = t.intervals[k];
      LB_FUZZ_CHECK(i.from_bytes <= i.to_bytes);
      LB_FUZZ_CHECK(k == 0 || i.from_bytes == t.intervals[k - 1].to_bytes + 1);
      if (i.layout.kind == ClusterLayout::Kind::tiled)
        LB_FUZZ_CHECK(i.layout.lanes >= 1 && i.layout.lanes <= lb::layout::kMaxTreeTile);
      for (const std::uint64_t bytes : {i.from_bytes, i.to_bytes})
        LB_FUZZ_CHECK(&t.class_for(bytes) == &i.layout);
    }
  });
  return 0;
}
