#pragma once
//! N-body's benchmark variants (nbody_bench.cpp), exposed for the GPU tests.

#include <memory>
#include <string_view>

#include "kofler/layout_choice.hpp"
#include "lb/harness/program.hpp"
#include "lb/kofler/nbody_reference.hpp"

namespace lb::benches::kofler {

//! What a variant runs (initial bodies, parameters) and the reference it is checked against
//! (made from them; a test may pair a run with another problem's reference).
struct NBodyCase {
  lb::kofler::NBodyState initial;
  lb::kofler::NBodyParams params;
  lb::kofler::NBodyReference reference;
};
NBodyCase make_nbody_case(std::size_t n, const lb::kofler::NBodyParams& params);

//! The versions: the paper's kernel (every layout) and the roofline version (SoA only).
inline constexpr std::string_view kNBodyPaperVersion = "gpu";
inline constexpr std::string_view kNBodyRooflineVersion = "roofline";

//! The variant of `layout` and `version` (throws std::invalid_argument for a layout N-body
//! does not compile, an unknown version, or the roofline version on a layout but SoA).
std::unique_ptr<Variant> make_nbody_variant(const LayoutChoice& layout, std::shared_ptr<const NBodyCase> c,
                                            std::string_view version = kNBodyPaperVersion);

}  // namespace lb::benches::kofler
