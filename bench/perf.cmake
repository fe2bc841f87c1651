# mink-perf-driver: the workload of the deterministic performance gate
# (scripts/perf-regress.sh runs it under callgrind). Included at the end of
# bench/CMakeLists.txt, after mink_cases_lib is defined.
add_executable(mink-perf-driver ${CMAKE_CURRENT_LIST_DIR}/perf_driver.c)
target_link_libraries(mink-perf-driver PRIVATE mink_cases_lib)
target_compile_options(mink-perf-driver PRIVATE ${MINK_WARNINGS})

# callgrind.h client requests delimit the measured regions; without the
# valgrind headers the driver still builds (and still checks answers).
find_path(MINK_CALLGRIND_INCLUDE_DIR callgrind.h
  PATHS /usr/include/valgrind /usr/local/include/valgrind NO_DEFAULT_PATH)
if(MINK_CALLGRIND_INCLUDE_DIR)
  # SYSTEM: valgrind.h's inline asm is not ours to keep -Wpedantic clean.
  target_include_directories(mink-perf-driver SYSTEM PRIVATE ${MINK_CALLGRIND_INCLUDE_DIR})
  target_compile_definitions(mink-perf-driver PRIVATE MINK_HAVE_CALLGRIND=1)
else()
  message(STATUS "mink-perf-driver: valgrind/callgrind.h not found, client requests compiled out")
endif()
