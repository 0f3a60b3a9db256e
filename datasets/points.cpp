#include "lb/datasets/points.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "lb/datasets/atomic_file.hpp"
#include "lb/datasets/text.hpp"

namespace lb::datasets {

using text::parse_double;
using text::parse_size;
using text::split;
using text::trim;

PointSet uniform_points(std::size_t n, std::uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  // 53 random bits -> [0, 1): the same numbers on every standard library.
  auto unit = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  PointSet s;
  s.x.resize(n);
  s.y.resize(n);
  s.z.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.x[i] = lo + (hi - lo) * unit();
    s.y[i] = lo + (hi - lo) * unit();
    s.z[i] = lo + (hi - lo) * unit();
  }
  s.source = fmt::format("uniform [{}, {}) seed {}", lo, hi, seed);
  return s;
}

PointSet load_points_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open file", path));
  PointSet s;
  s.source = path;
  std::string text;
  std::size_t line_no = 0;
  bool first_content = true;
  while (std::getline(in, text)) {
    ++line_no;
    const std::string_view line = trim(text);
    if (line.empty() || line.front() == '#') continue;
    const auto cols = split(line, ',');
    if (cols.size() != 3)
      throw InputError(fmt::format("{}:{}: expected 3 columns (x,y,value), found {}", path, line_no, cols.size()));
    double v[3];
    bool numeric = true;
    for (int c = 0; c < 3; ++c) numeric = parse_double(cols[c], v[c]) && numeric;
    if (!numeric && first_content) {
      bool all_names = true;  // a header: three non-numeric column names
      for (int c = 0; c < 3; ++c) all_names = all_names && !cols[c].empty() && !parse_double(cols[c], v[c]);
      if (all_names) {
        first_content = false;
        continue;
      }
    }
    first_content = false;
    static constexpr const char* kColumn[3] = {"x", "y", "value"};
    for (int c = 0; c < 3; ++c) {
      if (!parse_double(cols[c], v[c]))
        throw InputError(fmt::format("{}:{}: column {} ({}) is not a number: '{}'", path, line_no, c + 1, kColumn[c],
                                     cols[c]));
      if (!std::isfinite(v[c]))
        throw InputError(fmt::format("{}:{}: column {} ({}) is not finite: '{}'", path, line_no, c + 1, kColumn[c],
                                     cols[c]));
    }
    s.x.push_back(v[0]);
    s.y.push_back(v[1]);
    s.z.push_back(v[2]);
    s.line.push_back(line_no);
  }
  if (in.bad()) throw InputError(fmt::format("{}: read error", path));
  if (s.size() == 0) throw InputError(fmt::format("{}: no data points (empty file)", path));
  return s;
}

void check_no_coincident(const PointSet& s, double min_d2) {
  std::vector<std::size_t> order(s.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
  const double min_d = std::sqrt(min_d2);
  auto where = [&](std::size_t i) {
    return s.line.empty() ? fmt::format("point {}", i) : fmt::format("{}:{}", s.source, s.line[i]);
  };
  for (std::size_t a = 0; a < order.size(); ++a) {
    for (std::size_t b = a + 1; b < order.size() && s.x[order[b]] - s.x[order[a]] <= min_d; ++b) {
      const std::size_t i = order[a], j = order[b];
      const double dx = s.x[i] - s.x[j], dy = s.y[i] - s.y[j];
      if (dx * dx + dy * dy < min_d2) {
        const auto [first, second] = std::minmax(i, j);
        const std::string other = s.line.empty() ? fmt::format("point {}", first) : fmt::format("line {}", s.line[first]);
        throw InputError(fmt::format("{}: data point coincides with {} at ({}, {}); remove or merge duplicates",
                                     where(second), other, s.x[first], s.y[first]));
      }
    }
  }
}

GridSpec parse_grid_spec(std::string_view spec) {
  auto fail = [&](std::string_view why) {
    return InputError(fmt::format("grid spec '{}': {} (expected x0:x1:nx,y0:y1:ny, e.g. 0:1000:512,0:1000:512)", spec,
                                  why));
  };
  const auto axes = split(spec, ',');
  if (axes.size() != 2) throw fail("needs two axes separated by ','");
  GridSpec g{};
  double* lo[2] = {&g.x0, &g.y0};
  double* hi[2] = {&g.x1, &g.y1};
  std::size_t* count[2] = {&g.nx, &g.ny};
  for (int a = 0; a < 2; ++a) {
    const auto parts = split(axes[a], ':');
    if (parts.size() != 3) throw fail("each axis is lo:hi:count");
    if (!parse_double(parts[0], *lo[a]) || !parse_double(parts[1], *hi[a]) || !std::isfinite(*lo[a]) ||
        !std::isfinite(*hi[a]))
      throw fail("bounds must be finite numbers");
    if (!parse_size(parts[2], *count[a]) || *count[a] == 0) throw fail("count must be a positive integer");
    if (!(*hi[a] > *lo[a]) && *count[a] > 1) throw fail("hi must be greater than lo");
  }
  return g;
}

PointSet grid_points(const GridSpec& g) {
  PointSet s;
  s.source = fmt::format("grid {}:{}:{},{}:{}:{}", g.x0, g.x1, g.nx, g.y0, g.y1, g.ny);
  const auto coord = [](double lo, double hi, std::size_t n, std::size_t k) {
    return n == 1 ? lo : lo + (hi - lo) * static_cast<double>(k) / static_cast<double>(n - 1);
  };
  for (std::size_t iy = 0; iy < g.ny; ++iy)
    for (std::size_t ix = 0; ix < g.nx; ++ix) {
      s.x.push_back(coord(g.x0, g.x1, g.nx, ix));
      s.y.push_back(coord(g.y0, g.y1, g.ny, iy));
      s.z.push_back(0.0);
    }
  return s;
}

void write_points_csv(const std::string& path, const PointSet& s) {
  write_file_atomically(path, [&](std::ostream& out) {
    out << "x,y,value\n";
    for (std::size_t i = 0; i < s.size(); ++i) out << fmt::format("{},{},{}\n", s.x[i], s.y[i], s.z[i]);
  });
}

}  // namespace lb::datasets
