#pragma once
//! The IDW GPU tests' inputs, built on the host so that the CPU tests check them too
//! (test_idw_validation.cpp): a case's data and prediction points as a variant of one
//! precision sees them, with the probes of the harness's validation (lb/idw/validation.hpp:
//! one beside each tile's extreme value, so a kernel that skips a tile fails at any size,
//! where the sample's tolerance grows to 1.2 % at 100K and 12 % at 1000K in float) and one
//! prediction point exactly on a data point.

#include <algorithm>
#include <cstddef>
#include <vector>

#include "lb/datasets/points.hpp"
#include "lb/idw/reference.hpp"
#include "lb/idw/validation.hpp"

namespace lb::testing {

struct IdwCase {
  std::size_t m, n;
  int block;
  double extent = 1000.0;  //!< coordinates uniform in [0, extent)
};

//! Non-multiples of the block size (and of the roofline's 4 points per thread) on both m and
//! n; a block size other than the default.
inline const std::vector<IdwCase> kIdwSmallCases = {{1000, 777, 256}, {2048 + 37, 1501, 128}, {256, 256, 256}};
//! Coordinates up to 1e10 (squared-distance products overflow float), and blocks that are not
//! a multiple of 4: the roofline's other paths.
inline const IdwCase kRooflineOverflowCase = {1000, 777, 256, 1e10};
inline const std::vector<IdwCase> kRooflineOddBlockCases = {{1000, 777, 100}, {1000, 777, 99}};

struct IdwCaseInputs {
  datasets::PointSet data;     //!< rounded to the precision
  idw::ValidationSet set;      //!< set.pred: the prediction points the variant runs on
  std::size_t on_data = 0;     //!< the prediction point placed exactly on data point data_index
  std::size_t data_index = 0;
};

inline IdwCaseInputs idw_case_inputs(const IdwCase& c, idw::Precision prec, double p) {
  IdwCaseInputs in;
  in.data = idw::rounded_to(datasets::uniform_points(c.m, 1000 + c.m, 0.0, c.extent), prec);
  in.set = idw::make_validation_set(in.data, idw::rounded_to(datasets::uniform_points(c.n, 2000 + c.n, 0.0, c.extent), prec),
                                    prec, p, static_cast<std::size_t>(c.block));
  // The point on a data point takes an index no probe holds; the sample's reference there is
  // recomputed (the reference gives a coincident point the data point's value).
  in.data_index = c.m / 3;
  in.on_data = c.n / 2;
  auto is_probe = [&](std::size_t i) {
    return std::any_of(in.set.probes.begin(), in.set.probes.end(), [i](const idw::Probe& q) { return q.pred_index == i; });
  };
  while (is_probe(in.on_data)) in.on_data = (in.on_data + 1) % c.n;
  in.set.pred.x[in.on_data] = in.data.x[in.data_index];
  in.set.pred.y[in.on_data] = in.data.y[in.data_index];
  const auto at = std::lower_bound(in.set.indices.begin(), in.set.indices.end(), in.on_data);
  if (at != in.set.indices.end() && *at == in.on_data)
    in.set.reference[static_cast<std::size_t>(at - in.set.indices.begin())] =
        idw::reference_value(in.data, in.data.x[in.data_index], in.data.y[in.data_index], p);
  return in;
}

}  // namespace lb::testing
