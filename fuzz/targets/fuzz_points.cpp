// Points CSV (x,y,value: IDW's data points) through load_points_csv, then the coincident
// point check that `layoutbench interpolate` runs on every loaded set.

#include <cmath>

#include "fuzz_support.hpp"
#include "lb/datasets/points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static lb::fuzz::InputFile file;
  const std::string& path = file.write(data, size);
  lb::fuzz::expect_clean<lb::datasets::InputError>(path, [&] {
    const lb::datasets::PointSet s = lb::datasets::load_points_csv(path);
    LB_FUZZ_CHECK(s.size() > 0);
    LB_FUZZ_CHECK(s.y.size() == s.size() && s.z.size() == s.size() && s.line.size() == s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      LB_FUZZ_CHECK(std::isfinite(s.x[i]) && std::isfinite(s.y[i]) && std::isfinite(s.z[i]));
      LB_FUZZ_CHECK(i == 0 || s.line[i] > s.line[i - 1]);
    }
    lb::datasets::check_no_coincident(s, 1e-12);  // idw::kCoincidentD2
  });
  return 0;
}
