#pragma once
//! `layoutbench krige`: ordinary kriging (Li & Dong) of a user's wells over a grid, or of
//! the seeded generated case at a scale, by one of the paper's experiments on the GPU or
//! its CPU program, written out as the geological model (x,y,<surface...> per mesh point).

#include <cstddef>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace lb::tools {

struct KrigeOptions {
  std::string wells, grid;        //!< a user's wells (CSV x,y,<surface...>) and the mesh
  std::optional<int> scale;       //!< or the generated case at this scale
  std::optional<std::size_t> well_count;
  std::optional<int> experiment;  //!< unset: 6, or one that can run these wells (pick_experiment)
  std::string device = "gpu";
  std::optional<std::string> precision;  //!< experiment 7 only (default double)
  std::string model = "exponential";     //!< the variogram (lb/kriging/variogram.hpp)
  std::optional<double> range, sill, nugget;
  std::string out, wells_out;
  std::string solve = "device";  //!< experiment 8 on the GPU: where alpha is solved (device, host, auto)
  bool timing = false;           //!< print where the time went (--timing)
};

void add_krige_options(CLI::App* cmd, KrigeOptions& o);
int krige(const KrigeOptions& o);

}  // namespace lb::tools
