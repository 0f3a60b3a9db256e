#pragma once
//! Portability macros: the layout library and kernel bodies compile as plain C++ (host
//! tests, CPU launcher) and as CUDA (device kernels) from the same source.

#if defined(__CUDACC__)
#define LB_HD __host__ __device__
#define LB_FORCEINLINE __forceinline__
#define LB_UNROLL _Pragma("unroll")
#else
#define LB_HD
#define LB_FORCEINLINE inline __attribute__((always_inline))
#define LB_UNROLL _Pragma("GCC unroll 16")
#endif
