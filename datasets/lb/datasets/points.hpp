#pragma once
//! 2D point sets with a value per point: the seeded generator of the IDW paper's inputs,
//! a CSV loader (x,y,value) with file:line errors, prediction grids, and a CSV writer.

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lb::datasets {

//! Bad input data: the message names the file and line (or the spec) and the problem.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PointSet {
  std::vector<double> x, y, z;
  //! For loaded sets: the file line each point came from (empty for generated sets).
  std::vector<std::size_t> line;
  std::string source;  //!< file name or a description of the generator

  std::size_t size() const { return x.size(); }
};

//! n points with x, y, z uniform in [lo, hi) from a 64-bit Mersenne Twister seeded with
//! `seed` (the paper's authors' setup: [0, 1000)). Identical on every platform.
PointSet uniform_points(std::size_t n, std::uint64_t seed, double lo = 0.0, double hi = 1000.0);

//! Reads "x,y,value" lines (text::CsvLines: a byte order mark, quoted fields, the input size
//! limit). An optional first line of three non-numeric names is a header (only the first:
//! names later are malformed data); blank lines and lines starting with '#' are skipped.
//! Throws InputError naming file:line for a wrong column count, a non-numeric or non-finite
//! value, or a file with no points.
PointSet load_points_csv(const std::string& path);

//! The first pair (earlier, later index) of points closer than sqrt(min_d2), in order of the
//! later one; O(n log n) (cells of the distance's size). Shared by the points and wells checks.
std::optional<std::pair<std::size_t, std::size_t>> find_coincident(const std::vector<double>& x,
                                                                    const std::vector<double>& y, double min_d2);

//! Throws InputError if two points are closer than sqrt(min_d2) (naming both, with lines).
void check_no_coincident(const PointSet& points, double min_d2);

//! "x0:x1:nx,y0:y1:ny": nx * ny prediction points on a regular grid, x fastest.
struct GridSpec {
  double x0, x1;
  std::size_t nx;
  double y0, y1;
  std::size_t ny;
};
GridSpec parse_grid_spec(std::string_view spec);
PointSet grid_points(const GridSpec& grid);

//! Writes "x,y,value" with a header; to a temporary file renamed into place, so a failure
//! never leaves a half-written file behind.
void write_points_csv(const std::string& path, const PointSet& points);
//! The same text to a stream (an AtomicFile's, for a command writing several files).
void write_points_csv(std::ostream& out, const PointSet& points);

}  // namespace lb::datasets
