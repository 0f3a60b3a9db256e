#pragma once
//! Kofler's LavaMD program: a CUDA port of Rodinia's lavaMD (particles in a 3D grid of boxes,
//! each box interacting with itself and its up to 26 neighbours), in Rodinia's precision
//! (fp = double). Particle positions/charges rv {v, x, y, z} and forces fv {v, x, y, z} are
//! records laid out by a mapping; the charges qv are a plain array.

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "lb/layout/config.hpp"
#include "lb/layout/record.hpp"
#include "lb/layout/view.hpp"

namespace lb::kofler {

struct LavaV {};
struct LavaX {};
struct LavaY {};
struct LavaZ {};
//! Rodinia's FOUR_VECTOR of fp = double.
using FourVector = layout::Record<layout::Field<LavaV, double>, layout::Field<LavaX, double>,
                                  layout::Field<LavaY, double>, layout::Field<LavaZ, double>>;
inline const std::vector<std::string> kLavaFieldNames = {"v", "x", "y", "z"};

struct FourPlain {
  double v = 0, x = 0, y = 0, z = 0;
};

//! The same record as a layout's value and back (host-side filling and reading).
inline layout::RecordValue<FourVector> to_value(const FourPlain& p) {
  layout::RecordValue<FourVector> r;
  r.get<LavaV>() = p.v;
  r.get<LavaX>() = p.x;
  r.get<LavaY>() = p.y;
  r.get<LavaZ>() = p.z;
  return r;
}
inline FourPlain to_plain(const layout::RecordValue<FourVector>& r) {
  return {r.get<LavaV>(), r.get<LavaX>(), r.get<LavaY>(), r.get<LavaZ>()};
}

inline constexpr int kParticlesPerBox = 100;  // Rodinia's NUMBER_PAR_PER_BOX
inline constexpr int kLavaThreads = 128;      // Rodinia's NUMBER_THREADS
inline constexpr double kLavaAlpha = 0.5;     // Rodinia's par.alpha
//! The compile-time tiles lavamd.cu instantiates (tiled-ct).
inline constexpr std::array<std::size_t, 3> kLavaCompileTimeTiles = {4, 32, 128};

//! FP64 instructions of one pair besides the exponential: r2 = v + v - dot (add, mul, 2 fma,
//! sub), u2 (mul), fs = 2 vij (add), d (3 sub), fs·d (3 mul), the four accumulations (4 fma);
//! counted in the PTX of lavamd.cu (nvcc 13.0, sm_90).
inline constexpr int kLavaPairFp64 = 17;
//! FP64 instructions of CUDA's exp(double), a polynomial on the FP64 pipe (no special-function
//! unit): 14 fma + 1 add on the path every |u2| < 708 takes (this input's |u2| < 3), counted in
//! the same PTX.
inline constexpr int kLavaExpFp64 = 15;

//! Box number k of box b's interaction list in Rodinia's order: k = 0 the box itself, then
//! k = 1..26 the offsets (dz, dy, dx) in -1..1, z outermost, the box itself left out; -1 where
//! that neighbour lies outside the grid of boxes_1d³ boxes (numbered z·B² + y·B + x).
LB_HD inline long lava_partner(long b, int k, int boxes_1d) {
  if (k == 0) return b;
  const long n = boxes_1d;
  const int o = k <= 13 ? k - 1 : k;  // offsets 0..26 without 13, the centre
  const long x = b % n + o % 3 - 1, y = (b / n) % n + (o / 3) % 3 - 1, z = b / (n * n) + o / 9 - 1;
  if (x < 0 || y < 0 || z < 0 || x >= n || y >= n || z >= n) return -1;
  return (z * n + y) * n + x;
}
inline constexpr int kLavaPartners = 27;

//! A deliberate fault for the tests: a wrong kernel must fail validation.
enum class LavaFault { none, skip_last_neighbour };

struct LavaInput {
  std::vector<FourPlain> rv;  // boxes × kParticlesPerBox
  std::vector<double> qv;
};

//! Rodinia's input distribution ((rand() % 10 + 1) / 10 for every value), from a hash of the
//! index instead of rand(), for boxes_1d³ boxes.
LavaInput lavamd_input(int boxes_1d);
std::size_t lavamd_boxes(int boxes_1d);
//! Particle pairs one run evaluates: Σ over boxes of (1 + neighbours) × 100 × 100.
double lavamd_interactions(int boxes_1d);

//! The double reference (the GPU's order of terms) and, per output value, the sum of the
//! absolute values of its terms: the scale an error is measured against.
struct LavaReference {
  std::vector<FourPlain> fv;
  std::vector<FourPlain> scale;
};
LavaReference lavamd_reference(int boxes_1d, const LavaInput& in);

//! Each force value may differ from the reference by kLavaTolerance × its scale: every one of
//! its at most 27 × 100 terms carries a few rounding errors (exp to 1 ulp, FMA contraction:
//! about 8 ulps ≈ 2e-15 relative), which sum to at most 2700 × 2e-15 ≈ 5e-12 of the scale.
//! A missing or wrong term changes the value by one term, about 1/2700 of the scale.
inline constexpr double kLavaTolerance = 1e-11;

struct LavaCheck {
  std::string problem;  //!< empty: within tolerance
  double max_abs_err = 0;
  double max_rel_err = 0;  //!< |error| / scale
};
LavaCheck check_forces(const std::vector<FourPlain>& fv, const LavaReference& ref);

//! Forces of every particle (one block of kLavaThreads per box, the home box and each
//! neighbour box staged through shared memory, as Rodinia). lavamd.cu instantiates AoS, SoA,
//! run-time tiled and the compile-time tiles above.
template <class M>
void lavamd_forces(const layout::View<M>& rv, const double* qv, const layout::View<M>& fv, int boxes_1d,
                   cudaStream_t stream, LavaFault fault = LavaFault::none);

}  // namespace lb::kofler
