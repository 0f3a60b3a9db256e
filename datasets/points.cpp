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
#include <tuple>

#include <fmt/format.h>

#include "lb/datasets/atomic_file.hpp"
#include "lb/datasets/text.hpp"

namespace lb::datasets {

using text::parse_size;
using text::split;

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
  text::CsvLines lines(path);
  PointSet s;
  s.source = path;
  std::string_view line;
  bool first_content = true, header = false;
  while (lines.next(line)) {
    const std::size_t line_no = lines.line_no();
    const auto& cols = lines.fields();
    if (cols.size() != 3)
      throw InputError(fmt::format("{}:{}: expected 3 columns (x,y,value), found {}", path, line_no, cols.size()));
    double v[3];
    text::Number status[3];
    bool numeric = true;
    for (int c = 0; c < 3; ++c) {
      status[c] = text::parse_number(cols[c], v[c]);
      numeric = numeric && status[c] == text::Number::ok;
    }
    if (!numeric && first_content) {
      bool all_names = true;  // a header: three non-numeric column names
      for (int c = 0; c < 3; ++c) all_names = all_names && !cols[c].empty() && status[c] == text::Number::not_a_number;
      if (all_names) {
        first_content = false;
        header = true;
        continue;
      }
    }
    first_content = false;
    static constexpr const char* kColumn[3] = {"x", "y", "value"};
    for (int c = 0; c < 3; ++c) {
      if (status[c] != text::Number::ok)
        throw InputError(fmt::format("{}:{}: column {} ({}) {}", path, line_no, c + 1, kColumn[c],
                                     text::number_problem(status[c], cols[c])));
      if (!std::isfinite(v[c]))
        throw InputError(fmt::format("{}:{}: column {} ({}) is not finite: {}", path, line_no, c + 1, kColumn[c],
                                     text::quote(cols[c])));
    }
    s.x.push_back(v[0]);
    s.y.push_back(v[1]);
    s.z.push_back(v[2]);
    s.line.push_back(line_no);
  }
  if (s.size() == 0)
    throw InputError(fmt::format("{}: no data points ({})", path, header ? "a header only" : "empty file"));
  return s;
}

std::optional<std::pair<std::size_t, std::size_t>> find_coincident(const std::vector<double>& x,
                                                                    const std::vector<double>& y, double min_d2) {
  if (!(min_d2 > 0) || x.size() < 2) return std::nullopt;
  // Cells twice the distance wide: a closer pair lies in neighbouring cells, and a cell holds
  // at most a few points that are not closer (points sharing an x or a y do not pile up in a
  // sweep window). Entries sorted by (cell, index): each point is compared with the earlier
  // points of its 3 x 3 cells, so the pair found is the first line repeating an earlier one.
  const double cell = 2.0 * std::sqrt(min_d2);
  struct Entry {
    double cx, cy;
    std::size_t i;
    auto key() const { return std::tie(cx, cy, i); }
  };
  const auto cell_of = [&](std::size_t i) { return Entry{std::floor(x[i] / cell), std::floor(y[i] / cell), i}; };
  const auto before = [](const Entry& a, const Entry& b) { return a.key() < b.key(); };
  std::vector<Entry> entries(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) entries[i] = cell_of(i);
  std::sort(entries.begin(), entries.end(), before);
  for (std::size_t j = 1; j < x.size(); ++j) {
    const Entry at = cell_of(j);
    std::optional<std::size_t> earliest;
    for (double dx : {-1.0, 0.0, 1.0})
      for (double dy : {-1.0, 0.0, 1.0}) {
        const Entry from{at.cx + dx, at.cy + dy, 0};
        for (auto it = std::lower_bound(entries.begin(), entries.end(), from, before);
             it != entries.end() && it->cx == from.cx && it->cy == from.cy && it->i < j; ++it) {
          const double ddx = x[it->i] - x[j], ddy = y[it->i] - y[j];
          if (ddx * ddx + ddy * ddy < min_d2 && (!earliest || it->i < *earliest)) earliest = it->i;
        }
      }
    if (earliest) return std::pair{*earliest, j};
  }
  return std::nullopt;
}

void check_no_coincident(const PointSet& s, double min_d2) {
  const auto pair = find_coincident(s.x, s.y, min_d2);
  if (!pair) return;
  const auto [first, second] = *pair;
  const std::string where = s.line.empty() ? fmt::format("point {}", second) : fmt::format("{}:{}", s.source, s.line[second]);
  const std::string other = s.line.empty() ? fmt::format("point {}", first) : fmt::format("line {}", s.line[first]);
  throw InputError(fmt::format("{}: data point coincides with {} at ({}, {}); remove or merge duplicates", where, other,
                               s.x[first], s.y[first]));
}

GridSpec parse_grid_spec(std::string_view spec) {
  auto fail = [&](std::string_view why) {
    return InputError(fmt::format("grid spec {}: {} (expected x0:x1:nx,y0:y1:ny, e.g. 0:1000:512,0:1000:512)",
                                  text::quote(spec), why));
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
    for (int b = 0; b < 2; ++b) {
      double& bound = b == 0 ? *lo[a] : *hi[a];
      const text::Number status = text::parse_number(parts[b], bound);
      if (status == text::Number::out_of_range) throw fail("bound " + text::number_problem(status, parts[b]));
      if (status != text::Number::ok || !std::isfinite(bound)) throw fail("bounds must be finite numbers");
    }
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

void write_points_csv(std::ostream& out, const PointSet& s) {
  out << "x,y,value\n";
  for (std::size_t i = 0; i < s.size(); ++i) out << fmt::format("{},{},{}\n", s.x[i], s.y[i], s.z[i]);
}

void write_points_csv(const std::string& path, const PointSet& s) {
  write_file_atomically(path, [&](std::ostream& out) { write_points_csv(out, s); });
}

}  // namespace lb::datasets
