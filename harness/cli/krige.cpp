#include "krige.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "lb/common/cuda_check.hpp"
#include "lb/datasets/atomic_file.hpp"
#include "lb/datasets/grid_writer.hpp"
#include "lb/datasets/points.hpp"
#include "lb/datasets/wells.hpp"
#include "lb/harness/memory_fit.hpp"
#include "lb/kriging/cpu.hpp"
#include "lb/kriging/device.hpp"
#include "lb/kriging/variogram.hpp"
#include "common.hpp"

namespace lb::tools {

void add_krige_options(CLI::App* cmd, KrigeOptions& o) {
  cmd->add_option("--wells", o.wells, "CSV file of wells: header x,y,<surface 1>,...,<surface H>, one well a line")
      ->check(not_empty());
  cmd->add_option("--grid", o.grid, "mesh for --wells: x0:x1:nx,y0:y1:ny (x fastest)");
  cmd->add_option("--scale", o.scale, "instead of --wells: the seeded generated case at this scale (1..10 in the paper)")
      ->check(non_negative_integer());
  cmd->add_option("--well-count", o.well_count, "wells of the generated case (default 10, at least 2)")
      ->check(non_negative_integer());
  cmd->add_option("--experiment", o.experiment,
                  "1-6 (the paper's), 7 (A factored once, GEMMs; GPU only) or 8 (the dual form: A^-1 z solved "
                  "once per surface, then one pass over the mesh; GPU or CPU, any number of wells). Experiment 8 "
                  "gives no kriging variance (the dual form never forms the weights it needs): experiment 7, which "
                  "forms them, is for users who need it. Default: 6, or with more wells than it holds (its A must fit 64 KiB of "
                  "constant memory on the GPU; the CPU programs hold 64) experiment 8, named on stderr. An explicit "
                  "choice that cannot run is an error")
      ->check(non_negative_integer());
  cmd->add_option("--device", o.device, "gpu (the experiment's CUDA program) or cpu (its CPU program)")
      ->capture_default_str();
  cmd->add_option("--precision", o.precision, "experiments 7 and 8 only: double (default) or float")
      ->check(one_of({"float", "double"}));
  cmd->add_option("--model", o.model, "variogram model: exponential, spherical or gaussian")->capture_default_str();
  cmd->add_option("--range", o.range,
                  "practical range a: gamma reaches 95 % of the sill's structured part at a (exponential, "
                  "gaussian), all of it (spherical). Default: half the grid's diagonal");
  cmd->add_option("--sill", o.sill, "sill: gamma's plateau, nugget included (default 1)");
  cmd->add_option("--nugget", o.nugget, "nugget: gamma's jump at 0+, below the sill (default 0)");
  cmd->add_option("--out", o.out,
                  "file for the model; its extension picks the format: .csv (x,y,<surface names>, one mesh point "
                  "a line), .npy (NumPy array of shape (surfaces, ny, nx), rows from y0) or .tif/.tiff (GeoTIFF, "
                  "one band per surface, north up; needs GDAL at build time)");
  cmd->add_option("--wells-out", o.wells_out, "CSV file for the wells used (the --wells format)")->check(not_empty());
  cmd->add_option("--solve", o.solve,
                  "experiment 8 on the GPU: where alpha = A^-1 [z; 0] is solved: device (cuSOLVER), host (the "
                  "blocked LU on one core) or auto (times both on this input and keeps the faster: the benchmark's "
                  "rule)")
      ->check(one_of({"device", "host", "auto"}))
      ->capture_default_str();
  cmd->add_flag("--timing", o.timing,
                "print where the time went on stderr: loading, start-up (CUDA context, allocations), solve, kernels, "
                "transfers, checking, writing");
}

namespace {

using datasets::InputError;

//! What to krige: the wells, the mesh and the domain the variogram's range is chosen from.
struct Problem {
  datasets::WellSet wells;
  datasets::GridSpec grid{};
  double width = 0.0, height = 0.0;
};

Problem load_problem(const KrigeOptions& o) {
  Problem p;
  if (o.scale) {
    datasets::KrigingCaseSpec spec{.scale = *o.scale};
    if (o.well_count) spec.wells = *o.well_count;
    const Phase phase(fmt::format("generating the case at scale {}", *o.scale));
    datasets::KrigingCase c = datasets::generate_kriging_case(spec);
    p.wells = std::move(c.wells);
    p.grid = c.grid;
    p.width = c.width;
    p.height = c.height;
    return p;
  }
  p.grid = datasets::parse_grid_spec(o.grid);  // before the wells: a typo in the spec is cheap to report
  p.width = p.grid.x1 - p.grid.x0;
  p.height = p.grid.y1 - p.grid.y0;
  // Every distance on the mesh (and the default range, half its diagonal) must be a double.
  if (!std::isfinite(std::hypot(p.width, p.height)))
    throw InputError(fmt::format("grid spec '{}': the mesh's extent ({:g} x {:g}, diagonal {:g}) overflows a "
                                 "double: distances on it cannot be computed (narrow the grid)",
                                 o.grid, p.width, p.height, std::hypot(p.width, p.height)));
  {
    const Phase phase(fmt::format("loading the wells of {} ({})", o.wells, file_size_text(o.wells)));
    p.wells = datasets::load_wells_csv(o.wells);
  }
  if (!o.range && !(std::hypot(p.width, p.height) > 0.0))
    throw InputError(fmt::format("grid spec '{}': a single point has no extent to choose the variogram's range "
                                 "from (half the grid's diagonal); give --range, or the grid at least two points "
                                 "along an axis",
                                 o.grid));
  return p;
}

//! The variogram: the options given, the paper's choice (variogram.hpp) for the rest.
kriging::Variogram variogram_of(const KrigeOptions& o, const Problem& p) {
  kriging::Variogram v = kriging::Variogram::for_domain(p.width, p.height);
  v.model = *kriging::parse_variogram_model(o.model);  // checked in check_options
  if (o.range) v.range = *o.range;
  if (o.sill) v.sill = *o.sill;
  if (o.nugget) v.nugget = *o.nugget;
  try {
    kriging::check_variogram(v);
  } catch (const InputError& e) {  // name the options
    throw std::invalid_argument(fmt::format("--range/--sill/--nugget: {}", e.what()));
  }
  return v;
}

void check_options(const KrigeOptions& o) {
  if (o.device != "gpu" && o.device != "cpu")
    throw std::invalid_argument(fmt::format("unknown device '{}' (expected gpu or cpu)", o.device));
  if (!kriging::parse_variogram_model(o.model))
    throw std::invalid_argument(
        fmt::format("--model: unknown variogram model '{}' (expected exponential, spherical or gaussian)", o.model));
  if (o.experiment && (*o.experiment < 1 || *o.experiment > 8))
    throw std::invalid_argument(
        fmt::format("unknown experiment {} (expected 1 to 8: the paper's 1-6, 7 or 8)", *o.experiment));
  if (o.well_count && *o.well_count < 2)
    throw std::invalid_argument(fmt::format("--well-count {}: kriging needs at least 2 wells", *o.well_count));
  if (o.precision && o.experiment != 7 && o.experiment != 8)  // its value is checked by one_of
    throw std::invalid_argument(fmt::format("--precision is only for experiments 7 and 8 (give --experiment 7 or 8): experiment "
                                            "{} runs in {} (the paper's choice: 1-5 double, 6 float)",
                                            o.experiment.value_or(6), o.experiment.value_or(6) == 6 ? "float" : "double"));
  if (o.solve != "device" && (o.experiment != 8 || o.device != "gpu"))
    throw std::invalid_argument(fmt::format("--solve is for experiment 8 on the GPU (give --experiment 8 --device gpu): "
                                            "experiment {} on the {} solves where its program does",
                                            o.experiment.value_or(6), o.device == "cpu" ? "CPU" : "GPU"));
  if (o.experiment == 7 && o.device == "cpu")
    throw std::invalid_argument("experiment 7 runs on the GPU only (cuSOLVER and cuBLAS; it has no CPU program): use "
                                "--device gpu, or --experiment 1 to 6 with --device cpu");
  const bool from_file = !o.wells.empty();
  if (from_file && o.scale)
    throw std::invalid_argument("give either --wells FILE --grid SPEC (your wells) or --scale S (the generated case), "
                                "not both");
  if (!from_file && !o.scale)
    throw std::invalid_argument("nothing to krige: give --wells FILE --grid SPEC (your wells) or --scale S (the "
                                "generated case)");
  if (from_file && o.grid.empty())
    throw std::invalid_argument("--wells needs --grid x0:x1:nx,y0:y1:ny (the mesh to krige onto)");
  if (!from_file && !o.grid.empty())
    throw std::invalid_argument("--grid is for --wells; the generated case (--scale) has its own mesh");
  if (from_file && o.well_count)
    throw std::invalid_argument("--well-count is for the generated case (--scale); --wells uses every well in the file");
  if (o.out.empty())
    throw std::invalid_argument("--out FILE is required (the file the model is written to: .csv, .npy or .tif)");
  datasets::grid_format_of({"--out", o.out});  // GeoTIFF without GDAL is refused before any work
}

//! No --experiment: 6 (the paper's last), unless it cannot run these wells (on the GPU: A
//! and the values in 64 KiB of constant memory; on the CPU: the programs' kMaxWells): then
//! 8, the dual form, which has no limit, said on stderr.
int default_experiment(const KrigeOptions& o, const Problem& p) {
  // Beyond experiment 6: experiment 8, the dual form, on either device. On the CPU it is the
  // only program without a well limit; on the GPU the written rule (8 when its end-to-end
  // time at 1000 wells in double is below 7's) chose it in the H100 reference run of
  // 2026-11-25: 4.01 ms against 40.4 ms (its solve on the device, issue 25).
  constexpr int kDefault = 6;
  constexpr int fallback = 8;
  std::string why;
  if (o.device == "gpu") {
    try {
      kriging::check_device_experiment(kDefault, p.wells.wells(), p.wells.surfaces(), sizeof(float));
    } catch (const InputError& e) {
      why = e.what();
    }
  } else if (p.wells.wells() > static_cast<std::size_t>(kriging::kMaxWells)) {
    why = fmt::format("{} wells, but the CPU programs of experiments 1-6 hold at most {}", p.wells.wells(),
                      kriging::kMaxWells);
  }
  if (why.empty()) return kDefault;
  std::fprintf(stderr, "krige: no --experiment given and experiment %d cannot run these wells (%s); using experiment "
                       "%d (%s) on the %s in double\n",
               kDefault, why.c_str(), fallback, "the dual form",
               o.device == "gpu" ? "GPU" : "CPU");
  return fallback;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

//! Where the time of one krige went (seconds; NaN: not a part of this run), for --timing.
struct Timing {
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  double load = kNone;      //!< reading the wells (or generating the case)
  double startup = kNone;   //!< GPU: the CUDA context, device and pinned allocations, library handles
  double program = kNone;   //!< the program: GPU, its timed region (CUDA events); CPU, its wall clock
  double solve = kNone;     //!< exp 8: alpha's solve (host or device), inside `program`
  double kernels = kNone;   //!< GPU: the device part (first kernel to last), inside `program`
  double check = kNone;     //!< the finite-estimate check
  double write = kNone;     //!< writing the output files
};

template <class T>
struct Model {
  //! H x (M N), surface-major, mesh x fastest: the GPU's pinned output or the CPU's vector.
  const T* estimates = nullptr;
  std::vector<T> owned;  //!< the CPU program's output
  std::unique_ptr<kriging::DeviceExperiment<T>> experiment;  //!< owns the GPU's output
  double seconds = 0.0;          //!< wall clock of the program (device: set-up, run, download)
  double device_seconds = -1.0;  //!< the experiment's timed region (GPU only)
  std::string solved;            //!< exp 8 on the GPU: where alpha was solved, and why
};

template <class T>
Model<T> run_program(const KrigeOptions& o, const Problem& p, const kriging::Variogram& variogram, Timing& timing) {
  const int experiment_number = *o.experiment;
  const kriging::KrigingInput<T> in = kriging::make_input<T>(p.wells, p.grid, variogram);
  Model<T> m;
  const auto t0 = std::chrono::steady_clock::now();
  if (o.device == "gpu") {
    // The host-side limits first (too many wells, ...): they hold with or without a GPU.
    kriging::check_device_experiment(experiment_number, in.wells, in.surfaces, sizeof(T));
    kriging::check_device_mesh(experiment_number, in.points(), in.surfaces);
    require_gpu_for_device_option("the experiment's CPU program");
    const auto start = std::chrono::steady_clock::now();
    check(cudaFree(nullptr), "krige: create the CUDA context");
    m.experiment = std::make_unique<kriging::DeviceExperiment<T>>(experiment_number, in);
    if (experiment_number == 8) {
      if (o.solve == "auto") {
        const kriging::SolveChoice c = m.experiment->choose_solve(3);
        m.solved = fmt::format("{} (auto: median of 3 solves {:.3g} s on the host, {:.3g} s on the device)",
                               kriging::to_string(c.place), c.host_seconds, c.device_seconds);
      } else {
        m.experiment->set_solve(o.solve == "host" ? kriging::SolvePlace::host : kriging::SolvePlace::device);
        m.solved = o.solve;
      }
    }
    timing.startup = seconds_since(start);
    const kriging::DeviceTimes run = m.experiment->run_in_place();
    m.seconds = seconds_since(start);
    m.device_seconds = run.seconds;
    m.estimates = m.experiment->host_estimates();
    timing.program = run.seconds;
    timing.kernels = run.device_seconds;
    timing.solve = std::isfinite(run.host_solve_seconds) ? run.host_solve_seconds : run.device_solve_seconds;
  } else {
    const kriging::CpuProgram program = kriging::cpu_program_of(experiment_number);
    m.owned = kriging::run_cpu_program(program, in);
    m.seconds = seconds_since(t0);
    timing.program = m.seconds;
    if (m.owned.size() != in.points() * in.surfaces)
      throw std::runtime_error(fmt::format("experiment {} returned {} estimates, expected {} points x {} surfaces",
                                           experiment_number, m.owned.size(), in.points(), in.surfaces));
    m.estimates = m.owned.data();
  }
  const auto check_start = std::chrono::steady_clock::now();
  const std::size_t points = in.points(), count = points * in.surfaces;
  for (std::size_t k = 0; k < count; ++k)
    if (!std::isfinite(static_cast<double>(m.estimates[k]))) {
      const std::size_t h = k / points, pt = k % points;
      throw std::runtime_error(fmt::format(
          "experiment {} gave a non-finite estimate ({}) of surface '{}' at mesh point ({}, {}); nothing written",
          experiment_number, static_cast<double>(m.estimates[k]), p.wells.surface_names[h], pt % in.grid_x.size(),
          pt / in.grid_x.size()));
    }
  timing.check = seconds_since(check_start);
  return m;
}

//! --timing: one line a part, in the order they happen; the transfers are what the timed
//! region holds besides the solve and the kernels (uploads, downloads not hidden behind the
//! kernels, host work between them).
void print_timing(const Timing& t, double total) {
  auto line = [](const char* what, double s) {
    if (std::isfinite(s)) std::fprintf(stderr, "  %-34s %10.3f ms\n", what, s * 1e3);
  };
  std::fprintf(stderr, "krige timing:\n");
  line("loading the input", t.load);
  line("start-up (CUDA context, allocations)", t.startup);
  line("program (timed region)", t.program);
  line("  solve", t.solve);
  line("  kernels", t.kernels);
  if (std::isfinite(t.kernels))
    line("  transfers and host work", t.program - t.kernels - (std::isfinite(t.solve) ? t.solve : 0.0));
  line("checking the estimates", t.check);
  line("writing", t.write);
  line("total", total);
}

//! Appends text to a file in chunks (millions of rows: no per-row stream calls).
class ChunkedWriter {
 public:
  explicit ChunkedWriter(datasets::AtomicFile& file) : file_(file) {}
  fmt::memory_buffer& buffer() { return buf_; }
  void end_row() {
    buf_.push_back('\n');
    if (buf_.size() >= (1u << 20)) flush();
  }
  void flush() {
    file_.write({buf_.data(), buf_.size()});
    buf_.clear();
  }

 private:
  datasets::AtomicFile& file_;
  fmt::memory_buffer buf_;
};

void write_header(ChunkedWriter& w, const datasets::WellSet& wells) {
  fmt::format_to(std::back_inserter(w.buffer()), "x,y");
  for (const auto& name : wells.surface_names) fmt::format_to(std::back_inserter(w.buffer()), ",{}", name);
  w.end_row();
}

//! Enough digits to read every value back exactly: 17 for double, 9 for float.
template <class T>
void append_value(fmt::memory_buffer& buf, T v) {
  if constexpr (std::is_same_v<T, float>)
    fmt::format_to(std::back_inserter(buf), ",{:.9g}", v);
  else
    fmt::format_to(std::back_inserter(buf), ",{:.17g}", v);
}

void write_wells(datasets::AtomicFile& file, const datasets::WellSet& wells) {
  ChunkedWriter w(file);
  write_header(w, wells);
  for (std::size_t i = 0; i < wells.wells(); ++i) {
    fmt::format_to(std::back_inserter(w.buffer()), "{:.17g},{:.17g}", wells.x[i], wells.y[i]);
    for (std::size_t h = 0; h < wells.surfaces(); ++h) append_value(w.buffer(), wells.value(h, i));
    w.end_row();
  }
  w.flush();
}

template <class T>
int krige_in(const KrigeOptions& o, const Problem& p, const kriging::Variogram& variogram,
             datasets::AtomicFiles& outputs, Timing& timing, std::chrono::steady_clock::time_point started) {
  const auto bytes = kriging::run_bytes(*o.experiment, p.grid.nx, p.grid.ny, p.wells.surfaces(), p.wells.wells(),
                                        sizeof(T), o.device == "gpu");
  const std::string what = fmt::format("kriging {} x {} mesh points", p.grid.nx, p.grid.ny);
  harness::require_memory({.host_bytes = bytes.host, .device_bytes = bytes.device}, what);
  const Phase phase(fmt::format("{} x {} surfaces (about {} of host memory)", what, p.wells.surfaces(),
                                bytes_text(bytes.host)));
  const Model<T> m = run_program<T>(o, p, variogram, timing);
  // Both files are written before either is moved into place: a failure leaves neither.
  const auto write_start = std::chrono::steady_clock::now();
  datasets::write_grid(outputs[0], datasets::grid_format_of({"--out", o.out}),
                       datasets::GridValues<T>{p.grid, p.wells.surface_names, m.estimates});
  if (!o.wells_out.empty()) write_wells(outputs[1], p.wells);
  outputs.commit();
  const double write_seconds = seconds_since(write_start);
  timing.write = write_seconds;

  // Printed once the model is written (an error stays one line), before the summary (last).
  std::fprintf(stderr, "variogram: %s\n", variogram.describe().c_str());
  if (!m.solved.empty()) std::fprintf(stderr, "experiment 8 solved alpha on the %s\n", m.solved.c_str());
  const std::size_t points = p.grid.nx * p.grid.ny;
  const std::string device_time =
      m.device_seconds >= 0 ? fmt::format(" ({:.3f} s in the experiment's timed region)", m.device_seconds) : "";
  std::fprintf(stderr,
               "kriged %zu points x %zu surfaces from %zu wells: experiment %d, %s, %s, %.3f s%s -> %s (written in "
               "%.3f s)%s\n",
               points, p.wells.surfaces(), p.wells.wells(), *o.experiment, o.device.c_str(),
               std::is_same_v<T, float> ? "float" : "double", m.seconds, device_time.c_str(), o.out.c_str(), write_seconds,
               o.wells_out.empty() ? "" : fmt::format(" (wells -> {})", o.wells_out).c_str());
  if (o.timing) print_timing(timing, seconds_since(started));  // asked for: after the summary
  return 0;
}

}  // namespace

int krige(const KrigeOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  check_options(options);
  // The output paths are checked (and their temporary files made) before any work.
  std::vector<datasets::OutputPath> out_paths = {{"--out", options.out}};
  if (!options.wells_out.empty()) out_paths.push_back({"--wells-out", options.wells_out});
  datasets::AtomicFiles outputs(out_paths, {options.wells});
  Timing timing;
  const auto load_start = std::chrono::steady_clock::now();
  const Problem p = load_problem(options);
  timing.load = seconds_since(load_start);
  const kriging::Variogram variogram = variogram_of(options, p);
  KrigeOptions o = options;
  o.experiment = options.experiment ? *options.experiment : default_experiment(o, p);
  // Experiments 1-6 have the paper's precision (6 float, the rest double); 7 and 8 are
  // double unless --precision float.
  const bool use_float = *o.experiment >= 7 ? o.precision.value_or("double") == "float"
                                            : kriging::experiment_uses_float(*o.experiment);
  return use_float ? krige_in<float>(o, p, variogram, outputs, timing, started)
                   : krige_in<double>(o, p, variogram, outputs, timing, started);
}

}  // namespace lb::tools
