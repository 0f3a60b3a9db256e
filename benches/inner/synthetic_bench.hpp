#pragma once
//! Fig. 10a's variant (synthetic_variant.cu), for the planner and the GPU tests (which inject
//! faults).

#include <cstddef>
#include <memory>

#include "inner/suite.hpp"
#include "lb/harness/memory_fit.hpp"
#include "lb/harness/program.hpp"
#include "lb/layout/inner_array.hpp"

namespace lb::benches::inner {

//! One synthetic variant, for the planner and the GPU tests.
struct SyntheticCase {
  InnerLayout layout = InnerLayout::soa;
  InnerStrategy strategy = InnerStrategy::full;
  std::size_t inline_count = 0;  //!< partial's N (0 for the other strategies)
  std::size_t objects = 262144;
  int block = 256;
};

//! Test hooks: after a run, change one element on the device (the validation must name it) or
//! one byte outside the arrays' elements (a stray write).
enum class SyntheticFault { wrong_element, stray_write };

class SyntheticVariant : public Variant {
 public:
  virtual layout::InnerFootprint inner_footprint() const = 0;
  virtual void inject_fault(SyntheticFault fault) = 0;
};
std::unique_ptr<SyntheticVariant> make_synthetic_variant(const SyntheticCase& c);
//! Host and device bytes one case needs (inputs, two host images: the input and the run's copy;
//! the device copy).
MemoryNeed synthetic_memory_need(const SyntheticCase& c);

}  // namespace lb::benches::inner
