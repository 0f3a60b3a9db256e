#include "lb/datasets/wells.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numbers>
#include <random>
#include <string_view>

#include <fmt/format.h>

#include "lb/datasets/text.hpp"

namespace lb::datasets {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char p, char q) {
           return std::tolower(static_cast<unsigned char>(p)) == std::tolower(static_cast<unsigned char>(q));
         });
}

//! A smooth field on the unit square with values in [-1, 1]: the mean of a few plane waves
//! of long wavelength (0.25 to 1 cycles per domain side), so surfaces bend gently.
struct SmoothField {
  static constexpr int kWaves = 3;
  double kx[kWaves], ky[kWaves], phase[kWaves];

  double operator()(double u, double v) const {
    double sum = 0.0;
    for (int k = 0; k < kWaves; ++k) sum += std::sin(kx[k] * u + ky[k] * v + phase[k]);
    return sum / kWaves;
  }
};

}  // namespace

std::vector<double> grid_axis(double lo, double hi, std::size_t n) {
  std::vector<double> axis(n);
  for (std::size_t k = 0; k < n; ++k)
    axis[k] = n == 1 ? lo : lo + (hi - lo) * static_cast<double>(k) / static_cast<double>(n - 1);
  return axis;
}

KrigingCase generate_kriging_case(const KrigingCaseSpec& spec) {
  if (spec.scale < 1) throw InputError(fmt::format("kriging case: scale must be at least 1, got {}", spec.scale));
  if (spec.wells < 2)
    throw InputError(fmt::format("kriging case: {} well{}; kriging needs at least 2", spec.wells, spec.wells == 1 ? "" : "s"));
  if (spec.surfaces < 2) throw InputError("kriging case: needs at least 2 surfaces (one stratum)");
  if (spec.mesh_x < 1 || spec.mesh_y < 1) throw InputError("kriging case: the mesh needs at least 1 x 1 points");

  std::mt19937_64 rng(spec.seed);
  // 53 random bits -> [0, 1): the same numbers on every standard library.
  auto unit = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };

  // Everything is drawn at scale 1 (relative positions, depths), then the coordinates are
  // multiplied by s: every scale gets the same wells and surfaces.
  const double base_width = kKrigingCellSize * static_cast<double>(spec.mesh_x);
  const double base_height = kKrigingCellSize * static_cast<double>(spec.mesh_y);
  const double s = spec.scale;
  const std::size_t n = spec.wells;

  KrigingCase c;
  c.scale = spec.scale;
  c.width = base_width * s;
  c.height = base_height * s;
  // Cell centres: spacing kKrigingCellSize at every scale.
  const double half = 0.5 * kKrigingCellSize;
  const MeshSize mesh = kriging_mesh(spec);
  c.grid = GridSpec{half, c.width - half, mesh.nx, half, c.height - half, mesh.ny};

  // Wells: uniform in the inner 90 % of the domain, rejected when closer than half the mean
  // spacing to an earlier well (a near-coincident pair makes the system ill-conditioned).
  constexpr double kMargin = 0.05;
  const double min_spacing = 0.5 * std::sqrt(base_width * base_height / static_cast<double>(n));
  std::vector<double> u, v;  // relative positions in [0, 1)
  std::size_t attempts = 0;
  while (u.size() < n) {
    if (++attempts > 1000 * n)
      throw InputError(fmt::format("kriging case: cannot place {} wells {} m apart", n, min_spacing));
    const double cu = kMargin + (1.0 - 2.0 * kMargin) * unit();
    const double cv = kMargin + (1.0 - 2.0 * kMargin) * unit();
    bool far_enough = true;
    for (std::size_t i = 0; i < u.size() && far_enough; ++i) {
      const double dx = (cu - u[i]) * base_width, dy = (cv - v[i]) * base_height;
      far_enough = dx * dx + dy * dy >= min_spacing * min_spacing;
    }
    if (!far_enough) continue;
    u.push_back(cu);
    v.push_back(cv);
  }

  // Surfaces: field 0 is the top's relief, field h >= 1 the thickness variation of stratum h.
  auto draw_field = [&] {
    SmoothField f;
    for (int k = 0; k < SmoothField::kWaves; ++k) {
      const double cycles = 0.25 + 0.75 * unit();
      const double direction = 2.0 * std::numbers::pi * unit();
      f.kx[k] = 2.0 * std::numbers::pi * cycles * std::cos(direction);
      f.ky[k] = 2.0 * std::numbers::pi * cycles * std::sin(direction);
      f.phase[k] = 2.0 * std::numbers::pi * unit();
    }
    return f;
  };
  const std::size_t surfaces = spec.surfaces;
  WellSet& w = c.wells;
  w.x.resize(n);
  w.y.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    w.x[i] = u[i] * base_width * s;
    w.y[i] = v[i] * base_height * s;
  }
  w.values.resize(surfaces * n);
  const SmoothField top = draw_field();
  for (std::size_t i = 0; i < n; ++i) w.values[i] = 500.0 + 100.0 * top(u[i], v[i]);
  for (std::size_t h = 1; h < surfaces; ++h) {
    const double mean_thickness = 30.0 + 90.0 * unit();
    const SmoothField variation = draw_field();
    for (std::size_t i = 0; i < n; ++i)
      w.values[h * n + i] = w.values[(h - 1) * n + i] + mean_thickness * (1.0 + 0.5 * variation(u[i], v[i]));
  }
  for (std::size_t h = 0; h < surfaces; ++h) w.surface_names.push_back(fmt::format("surface{}", h));
  w.source = fmt::format("kriging case: {} wells, {} surfaces, mesh {} x {} (scale {}), seed {}", n, surfaces,
                         c.grid.nx, c.grid.ny, spec.scale, spec.seed);
  return c;
}

WellSet load_wells_csv(const std::string& path) {
  text::CsvLines lines(path);
  WellSet w;
  w.source = path;
  std::vector<std::vector<double>> per_well;  // values as read, one row per well
  std::size_t columns = 0;                    // 0 until the header is read
  std::string_view line;
  while (lines.next(line)) {
    const std::size_t line_no = lines.line_no();
    const auto& cols = lines.fields();
    if (columns == 0) {
      double ignored;
      const bool header = cols.size() >= 3 && equals_ignoring_case(cols[0], "x") && equals_ignoring_case(cols[1], "y");
      if (!header)
        throw InputError(fmt::format("{}:{}: expected a header x,y,<surface 1>,...,<surface H> (at least one surface), "
                                     "found {}",
                                     path, line_no, text::quote(line)));
      for (std::size_t c = 2; c < cols.size(); ++c) {
        if (cols[c].empty() || text::parse_number(cols[c], ignored) != text::Number::not_a_number)
          throw InputError(fmt::format("{}:{}: column {} of the header must name a surface, found {}", path, line_no,
                                       c + 1, text::quote(cols[c])));
        for (std::size_t d = 2; d < c; ++d)
          if (cols[d] == cols[c])
            throw InputError(fmt::format("{}:{}: columns {} and {} are both named {}", path, line_no, d + 1, c + 1,
                                         text::quote(cols[c])));
        w.surface_names.emplace_back(cols[c]);
      }
      columns = cols.size();
      continue;
    }
    if (cols.size() != columns)
      throw InputError(fmt::format("{}:{}: expected {} columns (x,y + {} surfaces), found {}", path, line_no, columns,
                                   columns - 2, cols.size()));
    std::vector<double> row(columns);
    for (std::size_t c = 0; c < columns; ++c) {
      const std::string_view name = c == 0 ? "x" : c == 1 ? "y" : std::string_view(w.surface_names[c - 2]);
      const text::Number status = text::parse_number(cols[c], row[c]);
      if (status != text::Number::ok)
        throw InputError(fmt::format("{}:{}: column {} ({}) {}", path, line_no, c + 1, name,
                                     text::number_problem(status, cols[c])));
      if (!std::isfinite(row[c]))
        throw InputError(
            fmt::format("{}:{}: column {} ({}) is not finite: {}", path, line_no, c + 1, name, text::quote(cols[c])));
    }
    w.x.push_back(row[0]);
    w.y.push_back(row[1]);
    w.line.push_back(line_no);
    per_well.push_back(std::move(row));
  }
  if (columns == 0)
    throw InputError(fmt::format("{}: empty file (expected a header x,y,<surface 1>,... and at least 2 wells)", path));
  if (w.wells() < 2)
    throw InputError(
        fmt::format("{}: {} well{}; kriging needs at least 2", path, w.wells(), w.wells() == 1 ? "" : "s"));
  // Surface-major, as the kernels read them.
  const std::size_t n = w.wells();
  w.values.resize(w.surfaces() * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t h = 0; h < w.surfaces(); ++h) w.values[h * n + i] = per_well[i][h + 2];
  check_no_coincident_wells(w);
  return w;
}

void check_no_coincident_wells(const WellSet& w, double min_d2) {
  const auto pair = find_coincident(w.x, w.y, min_d2);
  if (!pair) return;
  const auto [first, second] = *pair;
  const std::string where = w.line.empty() ? fmt::format("{}: well {}", w.source, second)
                                           : fmt::format("{}:{}: well", w.source, w.line[second]);
  const std::string other = w.line.empty() ? fmt::format("well {}", first) : fmt::format("line {}", w.line[first]);
  throw InputError(fmt::format("{} coincides with {} at ({}, {}): two wells at one position make the kriging "
                               "system singular; remove or merge duplicates",
                               where, other, w.x[first], w.y[first]));
}

}  // namespace lb::datasets
