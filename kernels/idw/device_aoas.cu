// IDW device code for the aoas layout (one translation unit per layout keeps builds parallel).
#include "device_impl.cuh"

template std::unique_ptr<lb::idw::DeviceProblem> lb::idw::make_device_problem_for<lb::idw::LayoutAoaS>(
    Precision, const datasets::PointSet&, const datasets::PointSet&);
