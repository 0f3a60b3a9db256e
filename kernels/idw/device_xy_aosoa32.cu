// IDW device code for the xy-aosoa32 layout (one translation unit per layout keeps builds parallel).
#include "device_impl.cuh"

template std::unique_ptr<lb::idw::DeviceProblem> lb::idw::make_device_problem_for<lb::idw::LayoutXYAoSoA32>(
    Precision, const datasets::PointSet&, const datasets::PointSet&);
