#include "idw_interpolate.hpp"

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "lb/common/cuda_check.hpp"
#include "lb/datasets/points.hpp"
#include "lb/exec/cpu_launcher.hpp"
#include "lb/idw/device.hpp"
#include "lb/idw/interaction.hpp"
#include "lb/idw/naive_body.hpp"
#include "lb/layout/host_storage.hpp"

namespace lb::tools {

void add_interpolate_options(CLI::App* cmd, InterpolateOptions& o) {
  cmd->add_option("--points", o.points, "CSV file of data points: x,y,value (optional header)")->required();
  cmd->add_option("--grid", o.grid, "prediction grid x0:x1:nx,y0:y1:ny")->required();
  cmd->add_option("--out", o.out, "CSV file to write x,y,value of the grid points")->required();
  cmd->add_option("--power", o.power, "IDW power p")->capture_default_str();
  cmd->add_option("--layout", o.layout, "data layout")->capture_default_str();
  cmd->add_option("--version", o.version, "naive or tiled (GPU)")->capture_default_str();
  cmd->add_option("--precision", o.precision, "float or double")->capture_default_str();
  cmd->add_option("--block", o.block, "threads per block (GPU)")->capture_default_str();
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

std::vector<double> on_gpu(const InterpolateOptions& o, idw::Precision prec, const datasets::PointSet& data,
                           const datasets::PointSet& grid) {
  const idw::Version version = idw::parse_version(o.version);
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

}  // namespace

int interpolate(const InterpolateOptions& o) {
  const idw::Precision prec = idw::parse_precision(o.precision);
  idw::check_layout(o.layout, prec);
  if (o.device != "gpu" && o.device != "cpu")
    throw std::invalid_argument("unknown device '" + o.device + "' (expected gpu or cpu)");
  if (!(o.power > 0)) throw std::invalid_argument("--power must be positive");
  if (o.block < 32 || o.block > 1024 || o.block % 32) throw std::invalid_argument("--block must be a multiple of 32 in [32, 1024]");
  const datasets::PointSet data = datasets::load_points_csv(o.points);
  datasets::check_no_coincident(data, idw::kCoincidentD2);
  datasets::PointSet grid = datasets::grid_points(datasets::parse_grid_spec(o.grid));
  const auto t0 = std::chrono::steady_clock::now();
  grid.z = o.device == "gpu" ? on_gpu(o, prec, data, grid) : on_cpu(o, prec, data, grid);
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  datasets::write_points_csv(o.out, grid);
  std::fprintf(stderr, "interpolated %zu grid points from %zu data points (%s, %s, %s, p = %g) in %.3f s -> %s\n",
               grid.size(), data.size(), o.device.c_str(), o.layout.c_str(), o.precision.c_str(), o.power, dt,
               o.out.c_str());
  return 0;
}

}  // namespace lb::tools
