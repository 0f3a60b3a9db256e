#pragma once
//! Every layout of the library. A layout *family* (AoS, SoA, AoSoA<L>, Split<...>, ...)
//! applied to a record gives a *mapping* (mapping.hpp states the contract); one header each.

#include "lb/layout/aos.hpp"
#include "lb/layout/aosoa.hpp"
#include "lb/layout/builtin_vec4.hpp"
#include "lb/layout/mapping.hpp"
#include "lb/layout/partition.hpp"
#include "lb/layout/soa.hpp"
#include "lb/layout/split.hpp"
