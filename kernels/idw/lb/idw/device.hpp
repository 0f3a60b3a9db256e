#pragma once
//! IDW on the GPU, seen from host code: one problem (data + prediction points) resident on
//! the device in one layout and precision, launched in any version, power and block size.
//! Implementations are instantiated one translation unit per layout (device_<layout>.cu).

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "lb/datasets/points.hpp"
#include "lb/idw/layouts.hpp"

namespace lb::idw {

//! naive and tiled (Mei 2014), the two CDP versions (Mei 2014's original, Mei & Tian's
//! improved) and a roofline version written as one would today (beyond the paper).
enum class Version { naive, tiled, cdp_original, cdp_improved, roofline };
std::string_view to_string(Version v);
//! Throws std::invalid_argument naming the accepted versions.
Version parse_version(std::string_view name);
std::vector<Version> gpu_versions();

struct Output {
  std::vector<double> z;  //!< the prediction points' values, converted to double
  std::size_t unwritten = 0;  //!< points still holding the poison written before the launch
  std::size_t first_unwritten = 0;
};

class DeviceProblem {
 public:
  virtual ~DeviceProblem() = default;
  //! Enqueues one run on `stream` (asynchronous; errors in the launch configuration throw).
  virtual void launch(Version version, double p, int block, cudaStream_t stream) = 0;
  //! Overwrites every output value with a NaN bit pattern no computation produces.
  virtual void poison_output(cudaStream_t stream) = 0;
  virtual Output read_output(cudaStream_t stream) = 0;
  //! Replaces the prediction points' positions by `pred`'s (same count: the launch
  //! configuration stays that of the timed points), e.g. with validation probes planted, and
  //! back. Waits for the upload.
  virtual void set_prediction_points(const datasets::PointSet& pred, cudaStream_t stream) = 0;
  //! Bytes of device memory the layout takes for data + prediction points.
  virtual std::size_t footprint_bytes() const = 0;
  //! Device-side (CDP) launches that failed since the last call (and resets the count).
  virtual std::size_t failed_device_launches() = 0;
};

std::unique_ptr<DeviceProblem> make_device_problem(std::string_view layout, Precision prec,
                                                   const datasets::PointSet& data, const datasets::PointSet& pred);

//! Per-layout factory, explicitly instantiated in device_<layout>.cu.
template <class Layout>
std::unique_ptr<DeviceProblem> make_device_problem_for(Precision prec, const datasets::PointSet& data,
                                                       const datasets::PointSet& pred);

}  // namespace lb::idw
