//! IDW (Mei & Tian 2016) benchmarks: every GPU version x layout x precision x power x size,
//! each validated against the double CPU reference before it is timed, plus the paper's
//! single-core CPU baseline and an OpenMP CPU time. The program's axes and expansion; its
//! settings in shepard_config, its variants in shepard_variants; the one planner (lb/harness/plan.hpp)
//! reads, expands, names and runs them.

#include <fmt/format.h>

#include "idw/shepard_config.hpp"
#include "idw/shepard_variants.hpp"
#include "idw/suite.hpp"
#include "lb/harness/plan.hpp"

namespace lb::benches::idw {
namespace {

bool on_cpu(const Point& at) { return at.text("version").starts_with("cpu-"); }

//! Per size and precision: the CPU baselines (each power, one core then all), then each layout
//! of the precision (the preset's "layouts" narrow them) x GPU version x power, within each
//! version's version_overrides and each layout's layout_overrides.
Expansion expand_shepard(const Reader& read) {
  const Settings s = read_settings(read);
  const Steps cpu_powers = [s](const Point&, const Reader& r) {
    return s.cpu_baselines ? r.steps("p") : std::vector<Step>{};
  };
  const Steps cpu_versions = [](const Point&, const Reader&) {
    std::vector<Step> out;
    for (const char* v : {"cpu-serial", "cpu-omp"})
      out.push_back({{"version", {v, std::string(v)}}, {"layout", {"aos", std::string("aos")}}});
    return out;
  };
  const Steps layouts = [](const Point& at, const Reader& r) {
    const auto& narrowed = r.values("layout");  // none: "all", or no key
    std::vector<Step> out;
    for (const auto& l : lb::idw::layout_names(lb::idw::parse_precision(at.text("precision"))))
      if (narrowed.empty() ||
          std::any_of(narrowed.begin(), narrowed.end(), [&](const AxisValue& v) { return v.text == l; }))
        out.push_back({{"layout", {l, l}}});
    return out;
  };
  const Steps gpu_versions = [](const Point&, const Reader& r) {
    std::vector<Step> out;
    for (const Step& step : r.steps("version"))
      if (!step.front().second.text.starts_with("cpu-")) out.push_back(step);  // --axis may name a CPU one
    return out;
  };
  return {.loops = {over("size",
                         {over("precision", {over("p", cpu_powers, {over("version", cpu_versions)}),
                                             over("layout", layouts,
                                                  {over("version", gpu_versions, {over("p", {over("block")})})})})})},
          .make =
              [](const Point& at) {
                const Precision prec = lb::idw::parse_precision(at.text("precision"));
                const double p = at.get<double>("p");
                const std::size_t size = at.get<std::size_t>("size");
                if (on_cpu(at)) return cpu_case({at.text("version") == "cpu-omp", prec, p, size});
                return gpu_case({lb::idw::parse_version(at.text("version")), at.text("layout"), prec, p, size,
                                 static_cast<int>(at.get<std::int64_t>("block"))});
              },
          .admits =
              [s](const Point& at) {
                return on_cpu(at) || s.runs(lb::idw::parse_version(at.text("version")), at.text("layout"),
                                            lb::idw::parse_precision(at.text("precision")), at.get<double>("p"),
                                            at.get<std::size_t>("size"));
              }};
}

}  // namespace

//! IDW's one program, Shepard's interpolation (the suite's section is its object).
Program shepard_program() {
  Axis versions{.name = "version", .key = "versions", .limits = parsed_by(lb::idw::parse_version)};
  for (Version v : lb::idw::gpu_versions()) versions.values.emplace_back(lb::idw::to_string(v));
  versions.values.insert(versions.values.end(), {"cpu-serial", "cpu-omp"});  // cpu_baselines
  Axis layouts = layout_axis();
  layouts.key = "layouts";
  layouts.required = false;
  layouts.word = "all";
  return {"shepard",
          {versions,
           layouts,
           {.name = "precision",
            .values = {"float", "double"},
            .key = "precisions",
            .limits = parsed_by(lb::idw::parse_precision),
            .shorthand = Shorthand::precision},
           {.name = "p",
            .type = AxisType::number,
            .key = "powers",
            .limits = [](const nlohmann::json& v) { return v.get<double>() > 0 ? "" : "powers must be positive"; }},
           {.name = "size", .type = AxisType::count, .key = "sizes", .shorthand = Shorthand::sizes},
           {.name = "block",
            .type = AxisType::integer,
            .key = "block",
            .limits =
                [](const nlohmann::json& v) {
                  const bool ok = v.is_number_integer() && v.get<std::int64_t>() >= 32 &&
                                  v.get<std::int64_t>() <= 1024 && v.get<std::int64_t>() % 32 == 0;
                  return ok ? "" : "'block' must be a multiple of 32 in [32, 1024]";
                },
            .scalar = true,
            .required = false,
            .fallback = 256}},
          {"checked_probes", "max_probe_share", "sampled", "sample_points", "omp_threads"},
          {"cpu_baselines", "version_overrides", "layout_overrides"},
          expand_shepard};
}

}  // namespace lb::benches::idw
