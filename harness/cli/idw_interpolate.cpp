#include "idw_interpolate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include <fmt/format.h>

#include "lb/common/cuda_check.hpp"
#include "lb/datasets/atomic_file.hpp"
#include "lb/datasets/grid_writer.hpp"
#include "lb/datasets/points.hpp"
#include "lb/exec/cpu_launcher.hpp"
#include "lb/harness/memory_fit.hpp"
#include "lb/idw/device.hpp"
#include "lb/idw/frame.hpp"
#include "lb/idw/interaction.hpp"
#include "lb/idw/naive_body.hpp"
#include "lb/layout/host_storage.hpp"
#include "common.hpp"

namespace lb::tools {

namespace {

//! "a, b, c" of the names in a list.
template <class Range, class Name>
std::string joined(const Range& items, Name name) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + std::string(name(item));
  return out;
}

}  // namespace

void add_interpolate_options(CLI::App* cmd, InterpolateOptions& o) {
  const auto same = [](const std::string& n) { return n; };
  const std::string layouts = fmt::format("data layout; float: {}; double: {}",
                                          joined(idw::layout_names(idw::Precision::f32), same),
                                          joined(idw::layout_names(idw::Precision::f64), same));
  const std::string versions =
      fmt::format("GPU version: {} (the CPU runs the naive body whatever the version)",
                  joined(idw::gpu_versions(), [](idw::Version v) { return idw::to_string(v); }));
  cmd->add_option("--points", o.points, "CSV file of data points: x,y,value (optional header)")->required();
  cmd->add_option("--grid", o.grid, "prediction grid x0:x1:nx,y0:y1:ny")->required();
  cmd->add_option("--out", o.out,
                  "file for the grid's values, in the precision computed; its extension picks the format: .csv "
                  "(x,y,value), .npy (NumPy array of shape (1, ny, nx), rows from y0) or .tif/.tiff (GeoTIFF, "
                  "north up; needs GDAL at build time)")
      ->required();
  cmd->add_option("--power", o.power, "IDW power p")->capture_default_str();
  cmd->add_option("--layout", o.layout, layouts)->capture_default_str();
  cmd->add_option("--version", o.version, versions)->capture_default_str();
  cmd->add_option("--precision", o.precision, "float or double")
      ->check(one_of({"float", "double"}))
      ->capture_default_str();
  cmd->add_option("--block", o.block, "threads per block (GPU)")->check(non_negative_integer())->capture_default_str();
  cmd->add_option("--device", o.device, "gpu or cpu (OpenMP, naive version)")->capture_default_str();
}

namespace {

std::vector<double> on_cpu(const InterpolateOptions& o, idw::Precision prec, const datasets::PointSet& data,
                           const datasets::PointSet& grid) {
  return idw::dispatch(o.layout, prec, [&]<class Layout, class T>() {
    using M = idw::MappingOf<Layout, T>;
    layout::HostStorage<M> d(M{data.size()}), g(M{grid.size()});
    auto fill_from = [](const layout::HostStorage<M>& s, const datasets::PointSet& p) {
      layout::fill(s.view(), [&](std::size_t i) {
        layout::RecordValue<idw::Point<T>> r;
        r.template get<idw::X>() = static_cast<T>(p.x[i]);
        r.template get<idw::Y>() = static_cast<T>(p.y[i]);
        r.template get<idw::Z>() = static_cast<T>(p.z[i]);
        return r;
      });
    };
    fill_from(d, data);
    fill_from(g, grid);
    idw::with_power(o.power, [&](auto power) { exec::run_openmp(grid.size(), idw::NaiveBody{d.view(), g.view(), power}); });
    std::vector<double> z(grid.size());
    for (std::size_t i = 0; i < z.size(); ++i) z[i] = static_cast<double>(g.view().template get<idw::Z>(i));
    return z;
  });
}

std::vector<double> on_gpu(const InterpolateOptions& o, idw::Version version, idw::Precision prec,
                           const datasets::PointSet& data, const datasets::PointSet& grid) {
  auto problem = idw::make_device_problem(o.layout, prec, data, grid);
  problem->poison_output(nullptr);
  problem->launch(version, o.power, o.block, nullptr);
  check(cudaDeviceSynchronize(), "IDW run");
  idw::Output out = problem->read_output(nullptr);
  if (out.unwritten)
    throw std::runtime_error(fmt::format("{} output values were never written (first: grid point {})", out.unwritten,
                                         out.first_unwritten));
  return std::move(out.z);
}

//! Peak bytes: the grid as points (x, y, z doubles) and its result, one layout copy of the
//! data and the grid on the host (and on the device for --device gpu).
harness::MemoryNeed memory_need(const InterpolateOptions& o, idw::Precision prec, std::size_t data_points,
                                double grid_points) {
  const double record = double(idw::footprint_bytes(o.layout, prec, 1024)) / 1024;  // bytes a point, padding included
  const double copy = record * (double(data_points) + grid_points);
  // Host: the grid (x, y, z), its copy in the computing frame and the result (7 doubles a
  // point), the data's frame copy, and the layout copies.
  const double host = grid_points * 7 * sizeof(double) + double(data_points) * 3 * sizeof(double) + copy;
  return {.host_bytes = host, .device_bytes = o.device == "gpu" ? copy : 0.0};
}

}  // namespace

int interpolate(const InterpolateOptions& o) {
  const idw::Precision prec = idw::parse_precision(o.precision);
  idw::check_layout(o.layout, prec);
  if (o.device != "gpu" && o.device != "cpu")
    throw std::invalid_argument("unknown device '" + o.device + "' (expected gpu or cpu)");
  const idw::Version version = idw::parse_version(o.version);  // a typo is one with --device cpu too
  if (!(o.power > 0) || !std::isfinite(o.power))
    throw std::invalid_argument("--power must be a positive finite number");
  if (o.block < 32 || o.block > 1024 || o.block % 32) throw std::invalid_argument("--block must be a multiple of 32 in [32, 1024]");
  // The output path and format are checked (and its temporary file made) before any work.
  const datasets::GridFormat format = datasets::grid_format_of({"--out", o.out});
  datasets::AtomicFiles outputs({{"--out", o.out}}, {o.points});
  if (o.device == "gpu") require_gpu_for_device_option("the naive version with OpenMP");
  const datasets::GridSpec spec = datasets::parse_grid_spec(o.grid);
  const datasets::PointSet data = [&] {
    const Phase phase(fmt::format("loading the points of {} ({})", o.points, file_size_text(o.points)));
    return datasets::load_points_csv(o.points);
  }();
  datasets::check_no_coincident(data, idw::kCoincidentD2);
  const harness::MemoryNeed need = memory_need(o, prec, data.size(), double(spec.nx) * double(spec.ny));
  const std::string what = fmt::format("interpolating {} x {} grid points", spec.nx, spec.ny);
  harness::require_memory(need, what);
  const Phase phase(fmt::format("{} (about {} of host memory)", what, bytes_text(need.host_bytes)));
  datasets::PointSet grid = datasets::grid_points(spec);
  const idw::FramedProblem framed = idw::frame_problem(data, spec, grid, o.power, prec);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<double> z = o.device == "gpu" ? on_gpu(o, version, prec, framed.data, framed.grid)
                                                  : on_cpu(o, prec, framed.data, framed.grid);
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (std::size_t i = 0; i < z.size(); ++i) {
    grid.z[i] = framed.frame.value_from_frame(z[i]);
    if (!std::isfinite(grid.z[i]))
      throw std::runtime_error(fmt::format("the value at grid point ({}, {}) is not finite ({}); nothing written",
                                           grid.x[i], grid.y[i], grid.z[i]));
  }
  // Written in the precision computed: a float run's values as floats (undoing the frame's
  // shift and scale in double adds no digits the computation had), unless one is beyond
  // float's range (the frame lets float compute on values up to double's): then as double.
  const std::vector<std::string> names{"value"};
  const bool beyond_float = std::any_of(grid.z.begin(), grid.z.end(), [](double v) {
    return std::abs(v) > double(std::numeric_limits<float>::max());
  });
  const bool as_float = prec == idw::Precision::f32 && !beyond_float;
  if (as_float) {
    const std::vector<float> values(grid.z.begin(), grid.z.end());
    datasets::write_grid(outputs[0], format, datasets::GridValues<float>{spec, names, values.data()});
  } else {
    datasets::write_grid(outputs[0], format, datasets::GridValues<double>{spec, names, grid.z.data()});
  }
  outputs.commit();
  if (prec == idw::Precision::f32 && !as_float)
    std::fprintf(stderr, "idw-interpolate: values beyond float's range (computed in float on scaled values): "
                         "written as double\n");
  std::fprintf(stderr, "interpolated %zu grid points from %zu data points (%s, %s, %s, p = %g) in %.3f s -> %s\n",
               grid.size(), data.size(), o.device.c_str(), o.layout.c_str(), o.precision.c_str(), o.power, dt,
               o.out.c_str());
  return 0;
}

}  // namespace lb::tools
