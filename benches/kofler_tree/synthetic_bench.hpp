#pragma once
//! The decision tree's training suite (Kofler et al. 2015, Sect. 3.2; docs/kofler-tree.md):
//! one program, "synthetic", whose cases are (fields m, iterations n, layout class). Its
//! variant is here for the planner and the GPU tests.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kofler_tree/suite.hpp"
#include "lb/harness/plan.hpp"
#include "lb/harness/program.hpp"

namespace lb::benches::kofler_tree {

//! One training kernel: `fields` floats a record, `iterations` a thread, `threads` threads
//! (0: records / iterations) over `records` records laid out as `layout` ("aos", "soa" or
//! "tiled" with `tile` records a tile).
struct TreeCase {
  std::size_t fields = 4;
  std::uint32_t iterations = 128;
  std::size_t records = std::size_t{1} << 24;
  std::size_t threads = 0;
  std::string layout = "soa";
  std::size_t tile = 0;  //!< tiled only: a power of two from 2
  int block = 256;
};

//! The case's class as the tree names it: "aos", "soa", "tiled:<t>".
std::string class_name(const TreeCase& c);

//! The variant of one case; a test hook breaks one record's field after a run (validation
//! must name it).
class TreeVariant : public Variant {
 public:
  virtual void inject_fault(std::size_t record, std::size_t field) = 0;
};
std::unique_ptr<TreeVariant> make_tree_variant(const TreeCase& c);

//! The id of a case: gpu/<layout>/float[/tile:<t>]/fields:<m>/n:<n>.
BenchmarkId tree_id(const TreeCase& c);

}  // namespace lb::benches::kofler_tree
