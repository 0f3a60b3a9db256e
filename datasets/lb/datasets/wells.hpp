#pragma once
//! Kriging input (Li & Dong, CUDA ordinary kriging): wells with one value per stratum
//! surface, the surface mesh, the seeded generator of the paper's base case and its scaled
//! versions, and a CSV loader for a user's wells ("x,y,<surface 1>,...,<surface H>").
//!
//! Base case (no real data is published; the choices made here):
//!   - domain [0, 5000 s] x [0, 9000 s] metres at scale s, so the 50 s x 90 s mesh has the
//!     same 100 m spacing at every scale; mesh points sit at the cell centres (50, 150, ...),
//!     x fastest (M = 50 s along x, N = 90 s along y, as the paper's (M/25, N/5) grid of
//!     (25, 5) blocks implies);
//!   - 10 wells uniform in the inner 90 % of the domain (5 % margin), at least half the mean
//!     well spacing apart (sqrt(area / wells) / 2 = 1061 m at scale 1) so no two wells make
//!     the kriging system nearly singular;
//!   - H = 11 surfaces bounding 10 strata, as depths in metres (positive down, surface 0 the
//!     top): depth_0 = 500 + 100 g_0 and depth_h = depth_{h-1} + t_h (1 + g_h / 2), with
//!     mean thicknesses t_h uniform in [30, 120) m and g smooth fields in [-1, 1] (the mean
//!     of 3 plane waves of 0.25 to 1 cycles per domain side). Thicknesses are at least t_h / 2,
//!     so the surfaces never cross, at the wells or anywhere else.
//!   - Scale s multiplies the well coordinates by s and keeps the values: the surfaces are
//!     functions of the position relative to the domain, so a scaled case is the same
//!     geology, sampled by s^2 times as many mesh points.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lb/datasets/points.hpp"

namespace lb::datasets {

struct WellSet {
  std::vector<double> x, y;                //!< per well
  std::vector<std::string> surface_names;  //!< one per surface (H)
  //! H x wells, surface-major: the value of surface h at well i is values[h * wells() + i],
  //! so one surface's values are contiguous (one upload per surface in the paper's exp. 1-2).
  std::vector<double> values;
  //! For loaded sets: the file line each well came from (empty for generated sets).
  std::vector<std::size_t> line;
  std::string source;  //!< file name or a description of the generator

  std::size_t wells() const { return x.size(); }
  std::size_t surfaces() const { return surface_names.size(); }
  double value(std::size_t surface, std::size_t well) const { return values[surface * wells() + well]; }
};

//! The paper's base case and the generator's fixed seed.
inline constexpr std::size_t kKrigingBaseMeshX = 50;  //!< M
inline constexpr std::size_t kKrigingBaseMeshY = 90;  //!< N
inline constexpr std::size_t kKrigingBaseWells = 10;
inline constexpr std::size_t kKrigingBaseSurfaces = 11;  //!< bounding 10 strata
inline constexpr double kKrigingCellSize = 100.0;        //!< metres between mesh points, every scale
inline constexpr std::uint64_t kKrigingSeed = 20110915;
//! The paper's scale factors (mesh length and width x s: 49,500 ... 4.95 M estimates).
inline constexpr int kKrigingScales[] = {1, 2, 4, 6, 8, 10};

struct KrigingCaseSpec {
  int scale = 1;
  std::size_t wells = kKrigingBaseWells;
  std::size_t surfaces = kKrigingBaseSurfaces;
  std::size_t mesh_x = kKrigingBaseMeshX;  //!< at scale 1
  std::size_t mesh_y = kKrigingBaseMeshY;
  std::uint64_t seed = kKrigingSeed;
};

//! The mesh a case of `spec` has (M s x N s points), known without generating the case.
struct MeshSize {
  std::size_t nx, ny;
};
inline MeshSize kriging_mesh(const KrigingCaseSpec& spec) {
  const auto s = static_cast<std::size_t>(spec.scale);
  return {spec.mesh_x * s, spec.mesh_y * s};
}

//! A generated kriging problem: wells, the mesh (GridSpec: nx = M, ny = N, x fastest) and
//! the domain [0, width] x [0, height] the mesh covers (the variogram's range is chosen
//! relative to it).
struct KrigingCase {
  WellSet wells;
  GridSpec grid;
  double width, height;
  int scale;
};

//! Deterministic on every platform for the positions (integer random stream converted by
//! hand); the values go through std::sin, so they may differ in the last bits between math
//! libraries. Throws InputError for a scale < 1, no wells, fewer than 2 surfaces or an
//! empty mesh.
KrigingCase generate_kriging_case(const KrigingCaseSpec& spec);
inline KrigingCase kriging_base_case(int scale = 1) { return generate_kriging_case({.scale = scale}); }

//! The coordinates of one axis of a GridSpec, exactly as grid_points computes them.
std::vector<double> grid_axis(double lo, double hi, std::size_t n);

//! Reads "x,y,<surface 1>,...,<surface H>" (text::CsvLines: a byte order mark, quoted
//! fields, the input size limit): a header naming the surfaces (at least one), then one
//! well per line. Blank lines and lines starting with '#' are skipped. Throws
//! InputError naming file:line for a missing or malformed header, a wrong column count, a
//! non-numeric or non-finite value, and naming the file for fewer than 2 wells or two wells
//! at one position (which would make the kriging system singular).
WellSet load_wells_csv(const std::string& path);

//! Wells closer than this (squared planar distance, squared metres) are "at one position":
//! distance below 1e-6, as IDW's kCoincidentD2.
inline constexpr double kCoincidentWellD2 = 1e-12;

//! Throws InputError naming both wells (file:line for loaded sets) if two are closer than
//! sqrt(min_d2).
void check_no_coincident_wells(const WellSet& wells, double min_d2 = kCoincidentWellD2);

}  // namespace lb::datasets
