# mink-bench: Google Benchmark suite (included by bench/CMakeLists.txt when
# MINK_BUILD_BENCH is on). shim.cc is the only C++ of mink itself; the peer
# adapters are built only when their library is found with pkg-config.
enable_language(CXX)
find_package(benchmark REQUIRED)
find_package(PkgConfig)

add_executable(mink-bench
  ${CMAKE_CURRENT_SOURCE_DIR}/shim.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/bench_queries.c
  ${CMAKE_CURRENT_SOURCE_DIR}/bench_coherence.c
  ${CMAKE_CURRENT_SOURCE_DIR}/bench_manifold.c
  ${CMAKE_CURRENT_SOURCE_DIR}/bench_cast.c)
target_link_libraries(mink-bench PRIVATE mink_cases_lib benchmark::benchmark m)
target_include_directories(mink-bench PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
set_target_properties(mink-bench PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
target_compile_definitions(mink-bench PRIVATE
  MINK_SIMD_NAME="${MINK_SIMD_RESOLVED}"
  MINK_BENCH_CASES_DEFAULT="${PROJECT_SOURCE_DIR}/tests/data/bench.cases"
  MINK_BENCH_TRAJ_DEFAULT="${PROJECT_SOURCE_DIR}/tests/data/traj.cases"
  MINK_BENCH_MANIFOLD_DEFAULT="${PROJECT_SOURCE_DIR}/tests/data/manifold.cases"
  MINK_BENCH_CAST_DEFAULT="${PROJECT_SOURCE_DIR}/tests/data/cast.cases")
# The batch family (batch/<query>/<kind>/<impl>-<variant>): bench_batch.c
# times mink_*_batch, a loop of single queries and the two-thread _mt entry
# points (POSIX threads inside the library).
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/bench_batch.c)
  find_package(Threads)
  target_sources(mink-bench PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/bench_batch.c)
  target_compile_definitions(mink-bench PRIVATE MINK_BENCH_HAVE_BATCH)
  if(Threads_FOUND)
    target_link_libraries(mink-bench PRIVATE Threads::Threads)
  endif()
endif()
# MINK_WARNINGS is for C (-Wmissing-prototypes); C++ gets the rest.
target_compile_options(mink-bench PRIVATE
  $<$<COMPILE_LANGUAGE:C>:${MINK_WARNINGS}>
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow>)

set(_mink_bench_peers "")
if(PkgConfig_FOUND)
  pkg_check_modules(CCD IMPORTED_TARGET ccd)
  pkg_check_modules(BULLET IMPORTED_TARGET bullet)
  pkg_check_modules(FCL IMPORTED_TARGET fcl)
endif()

# Peer adapters: their libraries' headers may warn, so they come in as SYSTEM
# includes; the adapters themselves stay warning clean.
if(CCD_FOUND)
  add_library(mink_peer_ccd STATIC ${CMAKE_CURRENT_SOURCE_DIR}/peers/ccd_peer.c)
  target_include_directories(mink_peer_ccd PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/peers)
  target_include_directories(mink_peer_ccd SYSTEM PRIVATE ${CCD_INCLUDE_DIRS})
  target_link_libraries(mink_peer_ccd PRIVATE mink_cases_lib PUBLIC PkgConfig::CCD)
  target_compile_options(mink_peer_ccd PRIVATE ${MINK_WARNINGS})
  target_link_libraries(mink-bench PRIVATE mink_peer_ccd)
  target_compile_definitions(mink_peer_ccd PUBLIC MINK_HAVE_CCD)
  list(APPEND _mink_bench_peers "libccd ${CCD_VERSION}")
endif()
if(BULLET_FOUND)
  # bullet_cast_peer.cc: the cast family's btGjkConvexCast and
  # btContinuousConvexCollision (peers/cast_peers.h)
  # bullet_gjkepa2_peer.cc: btGjkEpaSolver2 called directly (bullet-gjkepa2)
  add_library(mink_peer_bullet STATIC ${CMAKE_CURRENT_SOURCE_DIR}/peers/bullet_peer.cc
    ${CMAKE_CURRENT_SOURCE_DIR}/peers/bullet_gjkepa2_peer.cc
    ${CMAKE_CURRENT_SOURCE_DIR}/peers/bullet_manifold_peer.cc
    ${CMAKE_CURRENT_SOURCE_DIR}/peers/bullet_cast_peer.cc)
  set_target_properties(mink_peer_bullet PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_include_directories(mink_peer_bullet PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/peers)
  target_include_directories(mink_peer_bullet SYSTEM PRIVATE ${BULLET_INCLUDE_DIRS})
  # Bullet's own -D flags (BT_USE_DOUBLE_PRECISION on double builds) must match.
  target_compile_options(mink_peer_bullet PRIVATE ${BULLET_CFLAGS_OTHER} -Wall -Wextra -Wshadow)
  target_link_libraries(mink_peer_bullet PRIVATE mink_cases_lib PUBLIC PkgConfig::BULLET)
  target_link_libraries(mink-bench PRIVATE mink_peer_bullet)
  target_compile_definitions(mink_peer_bullet PUBLIC MINK_HAVE_BULLET)
  list(APPEND _mink_bench_peers "Bullet ${BULLET_VERSION}")
endif()
if(FCL_FOUND)
  # FCL (C++ with Eigen): its narrowphase solvers on shapes (fcl-indep,
  # fcl-ccd). Its pkg-config flags carry -std=c++11, which would fight the
  # target's C++17: only its include directories and libraries are taken.
  add_library(mink_peer_fcl STATIC ${CMAKE_CURRENT_SOURCE_DIR}/peers/fcl_peer.cc)
  set_target_properties(mink_peer_fcl PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_include_directories(mink_peer_fcl PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/peers)
  target_include_directories(mink_peer_fcl SYSTEM PRIVATE ${FCL_INCLUDE_DIRS})
  target_compile_options(mink_peer_fcl PRIVATE -Wall -Wextra -Wshadow)
  target_link_libraries(mink_peer_fcl PRIVATE mink_cases_lib)
  target_link_libraries(mink_peer_fcl PUBLIC ${FCL_LINK_LIBRARIES})
  target_link_libraries(mink-bench PRIVATE mink_peer_fcl)
  target_compile_definitions(mink_peer_fcl PUBLIC MINK_HAVE_FCL)
  list(APPEND _mink_bench_peers "FCL ${FCL_VERSION}")
endif()
if(_mink_bench_peers)
  message(STATUS "mink-bench: peers: ${_mink_bench_peers}")
else()
  message(STATUS "mink-bench: no peers found (pkg-config modules ccd, bullet, fcl)")
endif()
