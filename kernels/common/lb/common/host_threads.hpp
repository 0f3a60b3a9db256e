#pragma once
//! The host's OpenMP thread pool around timed regions.

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace lb {

//! Ends the calling thread's OpenMP pool (omp_pause_resource_all, soft): its threads exit
//! instead of waiting for the next parallel region. libgomp's idle threads first busy-wait
//! (GOMP_SPINCOUNT, 300000 pause-loop turns by default: milliseconds, longer in a VM), on
//! the cores a timed region that follows runs on; the next parallel region makes new ones.
//! Call it from outside any parallel region, after parallel host work (a reference, an image)
//! and before timing. Returns whether OpenMP did it (false in a unit built without OpenMP).
inline bool release_host_threads() {
#if defined(_OPENMP)
  return omp_pause_resource_all(omp_pause_soft) == 0;
#else
  return false;
#endif
}

}  // namespace lb
