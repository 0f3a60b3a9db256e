// IDW CDP versions, float layouts (relocatable device code; see lb/idw/cdp.hpp).
#include "cdp_kernels.cuh"

template struct lb::idw::CdpLaunchers<float, lb::idw::LayoutsFor<float>>;
