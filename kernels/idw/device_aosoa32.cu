// IDW device code for the aosoa32 layout (one translation unit per layout keeps builds parallel).
#include "device_impl.cuh"

template std::unique_ptr<lb::idw::DeviceProblem> lb::idw::make_device_problem_for<lb::idw::LayoutAoSoA32>(
    Precision, const datasets::PointSet&, const datasets::PointSet&);
