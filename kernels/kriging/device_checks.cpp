// Host-side limits of the CUDA experiments (plain C++: testable without a GPU).

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "device_messages.hpp"
#include "lb/kriging/device.hpp"
#include "lb/kriging/dual.hpp"

namespace lb::kriging {
namespace {

std::size_t align16(std::size_t bytes) { return (bytes + 15) / 16 * 16; }

}  // namespace

ConstantLayout constant_layout(std::size_t wells, std::size_t surfaces, std::size_t value_bytes) {
  ConstantLayout l;
  l.wells_offset = 0;
  l.matrix_offset = align16(2 * wells * value_bytes);
  l.values_offset = l.matrix_offset + align16((wells + 1) * (wells + 1) * value_bytes);
  l.bytes = l.values_offset + surfaces * wells * value_bytes;
  return l;
}

bool experiment_uses_float(int experiment) {
  if (experiment < 1 || experiment > 8)
    throw datasets::InputError(fmt::format(
        "kriging: no CUDA experiment {} (the paper has 1 to 6; 7 is the cuBLAS GEMM pair, 8 the dual form)", experiment));
  return experiment == 6;
}

int device_max_wells(int experiment) {
  if (experiment >= 7) return std::numeric_limits<int>::max();
  return experiment >= 5 ? kDeviceMaxWellsConstant : kDeviceMaxWells;
}

void check_device_experiment(int experiment, std::size_t wells, std::size_t surfaces, std::size_t value_bytes) {
  const bool wants_float = experiment_uses_float(experiment);
  if (experiment < 7 && value_bytes != (wants_float ? sizeof(float) : sizeof(double)))
    throw datasets::InputError(fmt::format("kriging CUDA experiment {} runs in {} (the spec: 1-5 double, 6 float), "
                                           "but the input is in {}",
                                           experiment, wants_float ? "float" : "double",
                                           value_bytes == sizeof(float) ? "float" : "double"));
  if (wells == 0 || surfaces == 0)
    throw datasets::InputError(fmt::format("kriging CUDA experiment {}: no {} to krige", experiment,
                                           wells == 0 ? "wells" : "surfaces"));
  if (experiment == 3) {
    const std::size_t threads = std::size_t(kExp3BlockX) * kExp3BlockY * surfaces;
    if (threads > static_cast<std::size_t>(kMaxThreadsPerBlock))
      throw datasets::InputError(fmt::format("kriging CUDA experiment 3 puts all H surfaces in one block's z: "
                                             "{} x {} x {} = {} threads, above the {} a block may have (H <= {})",
                                             kExp3BlockX, kExp3BlockY, surfaces, threads, kMaxThreadsPerBlock,
                                             kMaxThreadsPerBlock / (kExp3BlockX * kExp3BlockY)));
  }
  if (experiment == 5 || experiment == 6) {
    const ConstantLayout l = constant_layout(wells, surfaces, value_bytes);
    if (!l.fits())
      throw datasets::InputError(fmt::format("kriging CUDA experiment {}: {} wells x {} surfaces need {} bytes of "
                                             "constant memory (wells {} B, A {} B, values {} B), above the {} bytes "
                                             "(64 KiB) the device has",
                                             experiment, wells, surfaces, l.bytes, 2 * wells * value_bytes,
                                             (wells + 1) * (wells + 1) * value_bytes, surfaces * wells * value_bytes,
                                             kConstantPoolBytes));
  }
  if (wells > static_cast<std::size_t>(device_max_wells(experiment)))
    throw datasets::InputError(fmt::format("kriging CUDA experiment {}: {} wells, but the device's per-thread solver "
                                           "holds at most {} ({}, fixed at compile time: each thread's system is a "
                                           "local-memory array of (capacity + 1)^2 values)",
                                           experiment, wells, device_max_wells(experiment),
                                           experiment >= 5 ? "kDeviceMaxWellsConstant" : "kDeviceMaxWells"));
}

void check_device_mesh(int experiment, std::size_t points, std::size_t surfaces) {
  if (points == 0) throw datasets::InputError(fmt::format("kriging CUDA experiment {}: empty mesh", experiment));
  const std::size_t estimates = points * surfaces;
  if (estimates > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw datasets::InputError(fmt::format("kriging CUDA experiment {}: {} estimates, above the int range the kernels "
                                           "index with",
                                           experiment, estimates));
}

RunBytes run_bytes(int experiment, std::size_t mesh_x, std::size_t mesh_y, std::size_t surfaces, std::size_t wells,
                   std::size_t value_bytes, bool on_device) {
  const double points = double(mesh_x) * double(mesh_y), vb = double(value_bytes);
  const double m = double(wells) + 1;  // the kriging system's order
  const double axes = double(mesh_x + mesh_y) * (vb + sizeof(double));
  RunBytes b;
  b.host = axes + points * double(surfaces) * vb;
  if (experiment == 8) b.host += 2 * m * m * sizeof(double);  // A and its LU factors (double)
  if (on_device) {
    // The pinned output next to the estimates returned (DeviceExperiment::run copies them).
    b.host += points * double(surfaces) * vb;
    // Experiments 1-2 krige one surface at a time; 2-4 keep A; 7 keeps A and its inverse
    // in double (and in T) next to all estimates; 8 keeps alpha (H x m, the last term) and,
    // for its device solve, A and the right-hand sides in double.
    const double estimates = points * (experiment <= 2 ? 1.0 : double(surfaces)) * vb;
    const double matrices = experiment == 7                          ? m * m * (2 * sizeof(double) + vb)
                            : experiment == 8                        ? (m * m + m * double(surfaces)) * sizeof(double)
                            : experiment >= 2 && experiment <= 4 ? m * m * vb
                                                                     : 0.0;
    b.device = axes + estimates + matrices + m * double(surfaces) * vb;
  }
  return b;
}

BusBytes bus_bytes(int experiment, std::size_t mesh_x, std::size_t mesh_y, std::size_t surfaces, std::size_t wells,
                   std::size_t value_bytes, SolvePlace solve, WellLayout well_layout) {
  check_well_layout(experiment, well_layout);
  const double vb = double(value_bytes), n = double(wells), m = n + 1, h = double(surfaces);
  // aosoa32 uploads whole tiles of kTiledWellLanes wells.
  const double laid_out_wells = well_layout == WellLayout::soa ? n : double((wells + kTiledWellLanes - 1) / kTiledWellLanes * kTiledWellLanes);
  const double axes = double(mesh_x + mesh_y) * vb, wells_xy = 2 * laid_out_wells * vb, values = h * n * vb;
  // U's diagonal and getrf's info, read back by the device factorisations (exps 7, 8).
  const double factor_check = m * sizeof(double) + sizeof(int);
  BusBytes b;
  b.d2h = double(mesh_x) * double(mesh_y) * h * vb;  // every estimate, once
  switch (experiment) {
    case 1: b.h2d = wells_xy + axes + values; break;
    case 2:
    case 3:
    case 4: b.h2d = m * m * vb + wells_xy + axes + values; break;
    case 5:
    case 6: b.h2d = double(constant_layout(wells, surfaces, value_bytes).bytes) + axes; break;
    case 7:
      b.h2d = m * m * sizeof(double) + wells_xy + axes + values;
      b.d2h += factor_check;
      break;
    case 8:
      if (solve == SolvePlace::host) {
        b.h2d = wells_xy + axes + double(dual_coefficient_count(wells, surfaces)) * vb;
      } else {
        b.h2d = wells_xy + axes + values;
        b.d2h += factor_check;
      }
      break;
    default: throw datasets::InputError(fmt::format("kriging: no CUDA experiment {} (1 to 8)", experiment));
  }
  return b;
}

const char* to_string(WellLayout l) { return l == WellLayout::soa ? "soa" : "aosoa32"; }

WellLayout parse_well_layout(std::string_view name) {
  for (WellLayout l : {WellLayout::soa, WellLayout::aosoa32})
    if (name == to_string(l)) return l;
  throw std::invalid_argument(fmt::format("unknown well layout '{}' (expected one of: soa, aosoa32)", name));
}

void check_well_layout(int experiment, WellLayout l) {
  if (l == WellLayout::aosoa32 && experiment != 4)
    throw datasets::InputError(fmt::format(
        "kriging: experiment {} runs its own well layout; aosoa32 is experiment 4's (beyond the paper)", experiment));
}

const char* to_string(SolvePlace place) { return place == SolvePlace::device ? "device" : "host"; }
const char* to_string(DualFactorisation f) { return f == DualFactorisation::cholesky ? "cholesky" : "lu"; }

SolvePlace faster_solve(double host_median_s, double device_median_s) {
  const bool measured = host_median_s > 0 && device_median_s > 0;  // false for NaN
  return measured && device_median_s < host_median_s ? SolvePlace::device : SolvePlace::host;
}

double median_of(std::vector<double> seconds) {
  if (seconds.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(seconds.begin(), seconds.end());
  const std::size_t k = seconds.size() / 2;
  return seconds.size() % 2 ? seconds[k] : (seconds[k - 1] + seconds[k]) / 2;
}

std::string device_failure_where(int experiment, double px, double py, unsigned count) {
  return fmt::format("in CUDA experiment {} at grid point ({}, {}) ({} grid-point solve{} failed)", experiment, px, py,
                     count, count == 1 ? "" : "s");
}

}  // namespace lb::kriging
