// IDW CDP versions, float layouts (relocatable device code; see lb/idw/cdp.hpp).
#include "cdp_kernels.cuh"

LB_IDW_CDP_INSTANTIATE(LayoutSoA, float)
LB_IDW_CDP_INSTANTIATE(LayoutAoS, float)
LB_IDW_CDP_INSTANTIATE(LayoutAoaS, float)
LB_IDW_CDP_INSTANTIATE(LayoutBuiltin, float)
