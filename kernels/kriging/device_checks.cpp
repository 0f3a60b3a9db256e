// Host-side limits of the CUDA experiments (plain C++: testable without a GPU).

#include <limits>

#include <fmt/format.h>

#include "device_messages.hpp"
#include "lb/kriging/device.hpp"

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
    // Experiments 1-2 krige one surface at a time; 2-4 keep A; 7 keeps A and its inverse
    // in double (and in T) next to all estimates; 8 keeps alpha (H x m, the last term).
    const double estimates = points * (experiment <= 2 ? 1.0 : double(surfaces)) * vb;
    const double matrices = experiment == 7 ? m * m * (2 * sizeof(double) + vb) : experiment >= 2 && experiment <= 4 ? m * m * vb : 0.0;
    b.device = axes + estimates + matrices + m * double(surfaces) * vb;
  }
  return b;
}

std::string device_failure_where(int experiment, double px, double py, unsigned count) {
  return fmt::format("in CUDA experiment {} at grid point ({}, {}) ({} grid-point solve{} failed)", experiment, px, py,
                     count, count == 1 ? "" : "s");
}

}  // namespace lb::kriging
