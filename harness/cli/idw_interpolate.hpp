#pragma once
//! `layoutbench idw-interpolate`: run IDW on a user's points (CSV x,y,value) over a grid,
//! on the GPU in any version/layout or on the CPU, and write the values out as CSV.

#include <string>

#include <CLI/CLI.hpp>

namespace lb::tools {

struct InterpolateOptions {
  std::string points, grid, out;
  double power = 2.0;
  std::string layout = "aoas", version = "tiled", precision = "float", device = "gpu";
  int block = 256;
};

void add_interpolate_options(CLI::App* cmd, InterpolateOptions& o);
int interpolate(const InterpolateOptions& o);

}  // namespace lb::tools
