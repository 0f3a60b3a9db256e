// Wells CSV (x,y,<surface 1>,...: kriging's input) through load_wells_csv, which ends with
// the coincident-wells check.

#include <cmath>
#include <set>

#include "fuzz_support.hpp"
#include "lb/datasets/wells.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static lb::fuzz::InputFile file;
  const std::string& path = file.write(data, size);
  lb::fuzz::expect_clean<lb::datasets::InputError>(path, [&] {
    const lb::datasets::WellSet w = lb::datasets::load_wells_csv(path);
    LB_FUZZ_CHECK(w.wells() >= 2 && w.surfaces() >= 1);
    LB_FUZZ_CHECK(w.y.size() == w.wells() && w.line.size() == w.wells());
    LB_FUZZ_CHECK(w.values.size() == w.wells() * w.surfaces());
    LB_FUZZ_CHECK(std::set<std::string>(w.surface_names.begin(), w.surface_names.end()).size() == w.surfaces());
    for (std::size_t i = 0; i < w.wells(); ++i) LB_FUZZ_CHECK(std::isfinite(w.x[i]) && std::isfinite(w.y[i]));
    for (double v : w.values) LB_FUZZ_CHECK(std::isfinite(v));
  });
  return 0;
}
