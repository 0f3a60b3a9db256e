//! Write time of each grid output format (datasets/lb/datasets/grid_writer.hpp) for a
//! 1000 x 1000 grid of 11 surfaces (krige's generated case onto a 1M-node mesh) and of one
//! band (idw-interpolate): the bytes formatted or encoded, written to a temporary file and
//! renamed into place, as the commands do. CPU only, not part of any preset or ctest:
//!   cmake --build build --target grid_write_bench && build/grid_write_bench
//! The folder is $TMPDIR (default /tmp); the file is removed after each benchmark.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "lb/datasets/grid_writer.hpp"

namespace {

using lb::datasets::GridFormat;

template <class T>
void write_grid_bench(benchmark::State& state, GridFormat format, const char* extension, std::size_t bands) {
  const lb::datasets::GridSpec grid{0, 5000, 1000, 0, 9000, 1000};
  const std::size_t points = grid.nx * grid.ny;
  std::vector<std::string> names;
  for (std::size_t h = 0; h < bands; ++h) names.push_back("surface" + std::to_string(h));
  std::vector<T> values(bands * points);  // smooth surfaces, full-precision values
  for (std::size_t k = 0; k < values.size(); ++k)
    values[k] = T(500.0 + 100.0 * double(k / points) + 37.0 * std::sin(1e-3 * double(k % points)));
  const char* tmp = std::getenv("TMPDIR");
  const std::filesystem::path path = std::filesystem::path(tmp ? tmp : "/tmp") / (std::string("grid_write_bench") + extension);
  try {
    for (auto _ : state) {
      lb::datasets::AtomicFile file({"--out", path.string()});
      lb::datasets::write_grid(file, format, lb::datasets::GridValues<T>{grid, names, values.data()});
      file.commit();
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
  state.counters["bytes_written"] = double(std::filesystem::exists(path) ? std::filesystem::file_size(path) : 0);
  state.counters["values_per_s"] =
      benchmark::Counter(double(values.size()) * double(state.iterations()), benchmark::Counter::kIsRate);
  std::filesystem::remove(path);
}

void register_all() {
  struct Format {
    GridFormat format;
    const char* name;
    const char* extension;
  };
  std::vector<Format> formats = {{GridFormat::csv, "csv", ".csv"}, {GridFormat::npy, "npy", ".npy"}};
  if (lb::datasets::geotiff_available()) formats.push_back({GridFormat::geotiff, "geotiff", ".tif"});
  for (const Format& f : formats)
    for (std::size_t bands : {std::size_t(11), std::size_t(1)}) {
      const std::string suffix = std::string(f.name) + "/bands:" + std::to_string(bands) + "/grid:1000x1000";
      benchmark::RegisterBenchmark(("grid_write/double/" + suffix).c_str(), [=](benchmark::State& s) {
        write_grid_bench<double>(s, f.format, f.extension, bands);
      })->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
      benchmark::RegisterBenchmark(("grid_write/float/" + suffix).c_str(), [=](benchmark::State& s) {
        write_grid_bench<float>(s, f.format, f.extension, bands);
      })->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
    }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
