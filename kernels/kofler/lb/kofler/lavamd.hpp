#pragma once
//! Kofler's LavaMD program: a CUDA port of Rodinia's lavaMD (particles in a 3D grid of boxes,
//! each box interacting with itself and its up to 26 neighbours) in both of Rodinia's
//! precisions: its fp is double in the CUDA and OpenMP versions and float in the OpenCL version
//! (the one Kofler et al. ported). Particle positions/charges rv {v, x, y, z} and forces fv
//! {v, x, y, z} are records laid out by a mapping; the charges qv are a plain array.

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "lb/layout/config.hpp"
#include "lb/layout/program_layouts.hpp"
#include "lb/layout/record.hpp"
#include "lb/layout/view.hpp"

namespace lb::kofler {

struct LavaV {};
struct LavaX {};
struct LavaY {};
struct LavaZ {};
//! Rodinia's FOUR_VECTOR of fp.
template <class T>
using FourVector = layout::Record<layout::Field<LavaV, T>, layout::Field<LavaX, T>, layout::Field<LavaY, T>,
                                  layout::Field<LavaZ, T>>;
inline const std::vector<std::string> kLavaFieldNames = {"v", "x", "y", "z"};
//! The precision of the records a mapping lays out.
template <class M>
using LavaReal = typename M::record::template field_type<0>;

//! One record on the host, in double whatever the device's precision.
struct FourPlain {
  double v = 0, x = 0, y = 0, z = 0;
};

//! The same record as a layout's value and back (host-side filling and reading).
template <class T>
layout::RecordValue<FourVector<T>> to_value(const FourPlain& p) {
  layout::RecordValue<FourVector<T>> r;
  r.template get<LavaV>() = static_cast<T>(p.v);
  r.template get<LavaX>() = static_cast<T>(p.x);
  r.template get<LavaY>() = static_cast<T>(p.y);
  r.template get<LavaZ>() = static_cast<T>(p.z);
  return r;
}
template <class T>
FourPlain to_plain(const layout::RecordValue<FourVector<T>>& r) {
  return {r.template get<LavaV>(), r.template get<LavaX>(), r.template get<LavaY>(), r.template get<LavaZ>()};
}

inline constexpr int kParticlesPerBox = 100;  // Rodinia's NUMBER_PAR_PER_BOX
inline constexpr int kLavaThreads = 128;      // Rodinia's NUMBER_THREADS
inline constexpr double kLavaAlpha = 0.5;     // Rodinia's par.alpha
//! The compile-time tiles lavamd.cu instantiates (tiled-ct).
inline constexpr std::array<std::size_t, 3> kLavaCompileTimeTiles = {4, 32, 128};
//! What LavaMD compiles for its particle record of T: its tiles besides every run-time mapping
//! (no compile-time split). lavamd.cu instantiates lavamd_forces for these, float and double.
template <class T>
using LavaLayouts =
    layout::ProgramLayouts<FourVector<T>, decltype(layout::tiles_of<kLavaCompileTimeTiles>()), layout::LayoutList<>>;

//! What one pair costs and how closely a precision must match the double reference.
template <class T>
struct LavaPrecision;
template <>
struct LavaPrecision<double> {
  static constexpr const char* name = "double";
  //! FP64 instructions besides the exponential: r2 = v + v - dot (add, mul, 2 fma, sub), u2
  //! (mul), fs = 2 vij (add), d (3 sub), fs·d (3 mul), the four accumulations (4 fma); then
  //! CUDA's exp(double), a polynomial on the FP64 pipe (no special-function unit): 14 fma + 1
  //! add on the path every |u2| < 708 takes (this input's |u2| < 3). Counted in the PTX of
  //! lavamd.cu and of exp alone (nvcc 13.0, sm_90).
  static constexpr int pair_ops = 17 + 15;
  static constexpr int pair_special = 0;
  //! Each value may differ from the reference by this much of its scale (the sum of its
  //! terms' magnitudes): each of its at most 2700 terms carries a few ulps (exp to 1 ulp, FMA
  //! contraction: ≈ 2e-15) and the running sum at most 2700 u ≈ 3e-13 of the scale. A
  //! missing term moves the value by about 1/2700 of the scale.
  static constexpr double tolerance = 1e-11;
};
template <>
struct LavaPrecision<float> {
  static constexpr const char* name = "float";
  //! FP32-pipe instructions: the same 17, and expf's 4 fma, add, mul and saturating convert
  //! around one ex2.approx (the special-function unit); counted in the PTX as above.
  static constexpr int pair_ops = 17 + 7;
  static constexpr int pair_special = 1;
  //! The reference runs on the float-rounded input, so only the arithmetic differs: a term's
  //! r2 carries ~ 5 × 3 u absolute (≈ 1e-6 relative on vij, with expf's 2 ulps), and the
  //! float running sum at most 2700 u ≈ 1.6e-4 of the scale. A kernel that misses a partner
  //! box moves a value by ~ 1/27 of its scale; a single missing term (~ 1/2700) may pass.
  static constexpr double tolerance = 2e-4;
};

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
//! The input as a float run sees it (each value rounded to float), in double.
LavaInput rounded_to_float(const LavaInput& in);
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

struct LavaCheck {
  std::string problem;  //!< empty: within tolerance
  double max_abs_err = 0;
  double max_rel_err = 0;  //!< |error| / scale
};
//! Every value within `tolerance` × its scale of the reference (LavaPrecision<T>::tolerance).
LavaCheck check_forces(const std::vector<FourPlain>& fv, const LavaReference& ref, double tolerance);

//! Forces of every particle (one block of kLavaThreads per box, the home box and each
//! neighbour box staged through shared memory, as Rodinia). lavamd.cu instantiates AoS, SoA,
//! run-time tiled and the compile-time tiles above, in float and double.
template <class M>
void lavamd_forces(const layout::View<M>& rv, const LavaReal<M>* qv, const layout::View<M>& fv, int boxes_1d,
                   cudaStream_t stream, LavaFault fault = LavaFault::none);

}  // namespace lb::kofler
