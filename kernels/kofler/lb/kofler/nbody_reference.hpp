#pragma once
//! N-body's host side: initial bodies, the double reference with its error bounds, the check.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lb/kofler/agreement.hpp"
#include "lb/kofler/nbody.hpp"

namespace lb::kofler {

//! Bodies in canonical form (record order), host side.
struct NBodyState {
  std::vector<float4> pos, vel;
  std::size_t size() const { return pos.size(); }
};

//! n bodies from `seed`: positions uniform in the unit ball, velocities uniform in a ball of
//! radius 0.1, masses uniform in [0.5, 1.5] / n (total mass about 1, G = 1).
NBodyState nbody_initial(std::size_t n, std::uint64_t seed);

//! The double reference trajectory after params.steps steps from `initial` (the same float
//! inputs and parameters the kernel gets, read exactly), with each body's error bound for a
//! float run of the kernel (see nbody_reference.cpp for the derivation).
struct NBodyReference {
  std::vector<double> pos, vel;              //!< 3 per body
  std::vector<double> pos_bound, vel_bound;  //!< per body, on the Euclidean norm of the error
};
NBodyReference nbody_reference(const NBodyState& initial, const NBodyParams& params);

//! Every body's pos and vel (xyz; mass and w must be unchanged) against the reference.
Agreement check_nbody(const NBodyReference& reference, const NBodyState& initial, const NBodyState& got);

}  // namespace lb::kofler
