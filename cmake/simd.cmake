# MINK_SIMD -> compiler flags and the backend macro read by kernel/simd.h.
#
# MINK_SIMD=<width>: the library holds that one backend (MINK_SIMD_FLAGS for
# every source). MINK_SIMD=auto (the default): on aarch64 neon; on x86-64
# with GCC or Clang the run-time dispatch build (MINK_SIMD_DISPATCH): the
# SIMD kernel's width-dependent sources once per backend in
# MINK_DISPATCH_BACKENDS (flags MINK_SIMD_FLAGS_<b>, definitions
# MINK_SIMD_DEFS_<b>), everything else for the x86-64 baseline
# (MINK_SIMD_FLAGS empty), and kernel/dispatch.c picking the widest backend
# the CPU runs at first use; elsewhere sse41.
set(MINK_SIMD_FLAGS "")
set(MINK_SIMD_DEFS "")
set(MINK_SIMD_DISPATCH OFF)
set(MINK_DISPATCH_BACKENDS "")
set(MINK_SIMD_FLAGS_portable "")
set(MINK_SIMD_DEFS_portable SIMDE_NO_NATIVE)
set(MINK_SIMD_FLAGS_sse41 -msse4.1)
set(MINK_SIMD_FLAGS_avx2 -mavx2 -mfma)
set(MINK_SIMD_FLAGS_avx512 -mavx512f -mavx512dq -mavx512vl -mavx2 -mfma)
foreach(_b sse41 avx2 avx512)
  set(MINK_SIMD_DEFS_${_b} "")
endforeach()

set(_simd ${MINK_SIMD})
if(_simd STREQUAL "auto")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64|ARM64")
    set(_simd neon)
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64" AND CMAKE_SIZEOF_VOID_P EQUAL 8
         AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    set(MINK_SIMD_DISPATCH ON)
    set(MINK_DISPATCH_BACKENDS portable sse41 avx2 avx512)
    set(MINK_SIMD_DEFS MINK_DISPATCH)
  else()
    set(_simd sse41)
  endif()
endif()
if(MINK_SIMD_DISPATCH)
  # the baseline: no -m flags
elseif(_simd STREQUAL "sse41" OR _simd STREQUAL "avx2" OR _simd STREQUAL "avx512")
  set(MINK_SIMD_FLAGS ${MINK_SIMD_FLAGS_${_simd}})
elseif(_simd STREQUAL "neon")
  set(MINK_SIMD_FLAGS "")
elseif(_simd STREQUAL "portable")
  set(MINK_SIMD_DEFS SIMDE_NO_NATIVE)
else()
  message(FATAL_ERROR "MINK_SIMD must be auto, sse41, avx2, avx512, neon or portable (got ${MINK_SIMD})")
endif()
# "auto" for the dispatch build (the backend is known only at run time:
# mink_simd_backend()), else the one width.
set(MINK_SIMD_RESOLVED ${_simd})
if(MINK_SIMD_DISPATCH)
  string(REPLACE ";" ", " _list "${MINK_DISPATCH_BACKENDS}")
  message(STATUS "mink: SIMD backend chosen at run time among ${_list} (MINK_SIMD=auto)")
else()
  message(STATUS "mink: SIMD backend ${MINK_SIMD_RESOLVED}")
endif()
