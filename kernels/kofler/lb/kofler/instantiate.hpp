#pragma once
//! The mappings every Kofler program's dispatch (the layout library's with_mapping,
//! lb/layout/choice_mapping.hpp) reaches whatever its preset: X(mapping) for each, for explicit
//! instantiations in the program's .cu. The compile-time tiles and splits are the program's own.

#include "lb/layout/aos.hpp"
#include "lb/layout/aosoa.hpp"
#include "lb/layout/partition.hpp"
#include "lb/layout/soa.hpp"

#define LB_KOFLER_RUNTIME_MAPPINGS(Rec, X) \
  X(::lb::layout::AoSMapping<Rec>)         \
  X(::lb::layout::SoAMapping<Rec>)         \
  X(::lb::layout::RuntimeAoSoAMapping<Rec>) \
  X(::lb::layout::Pow2AoSoAMapping<Rec>)    \
  X(::lb::layout::PartitionMapping<Rec>)    \
  X(::lb::layout::Pow2PartitionMapping<Rec>)
