# Cross build for aarch64 Linux (Debian multiarch) with tests run under qemu.
#   cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake -DMINK_SIMD=neon
# Needs gcc-aarch64-linux-gnu, qemu-user (or qemu-user-static) and the arm64
# libraries the tests link (libcmocka-dev:arm64): scripts/test-aarch64.sh
# installs them.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(MINK_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${MINK_CROSS_TRIPLE}-gcc)
# Only used when a C++ target is enabled (the benchmark shim).
set(CMAKE_CXX_COMPILER ${MINK_CROSS_TRIPLE}-g++)

# Debian puts the cross libc in /usr/aarch64-linux-gnu and foreign-architecture
# packages (libcmocka-dev:arm64) in /usr/lib/aarch64-linux-gnu. Naming the
# library architecture makes find_library/find_package look in <prefix>/lib/<arch>
# and so pick the arm64 files, never the host's x86_64-linux-gnu ones. "/" is a
# root too so that the multiarch dir and arch-independent headers in
# /usr/include (SIMDe, cmocka.h) are found.
set(CMAKE_LIBRARY_ARCHITECTURE ${MINK_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH /usr/${MINK_CROSS_TRIPLE} /)
# Programs run on the host; libraries and packages must be the target's.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest (and add_test commands) run target binaries through qemu. -L makes
# the emulator load the cross loader (/usr/aarch64-linux-gnu/lib/ld-linux-...).
# That loader searches /lib/aarch64-linux-gnu first, where libc6:arm64 (pulled
# in by libcmocka0:arm64) puts a libc.so.6 from a different glibc build; a
# loader and libc of different builds hang in pthread_create. LD_LIBRARY_PATH
# in the guest makes libc come from beside the loader; only libcmocka comes
# from the multiarch dir.
find_program(MINK_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(MINK_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${MINK_QEMU_AARCH64} -L /usr/${MINK_CROSS_TRIPLE}
      -E LD_LIBRARY_PATH=/usr/${MINK_CROSS_TRIPLE}/lib)
endif()
