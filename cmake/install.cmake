# Install rules: the library (static by default, shared with -DBUILD_SHARED_LIBS=ON),
# the public headers, the CMake package (find_package(mink CONFIG) -> mink::mink)
# and mink.pc. Included at the end of the top-level CMakeLists.txt.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# When mink is vendored (add_subdirectory/FetchContent) the engine decides what to install.
option(MINK_INSTALL "Generate mink's install rules" ${MINK_TOP_LEVEL})

# While 0.x every minor release may break API and ABI, so the soname and the package
# compatibility both key on major.minor (libmink.so.0.1, find_package(mink 0.1) accepts
# 0.1.x only); from 1.0 on they key on the major alone.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(MINK_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  set(MINK_VERSION_COMPAT SameMinorVersion)
else()
  set(MINK_SOVERSION ${PROJECT_VERSION_MAJOR})
  set(MINK_VERSION_COMPAT SameMajorVersion)
endif()
# Only meaningful for the shared library; ignored for the static one.
set_target_properties(mink PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${MINK_SOVERSION})

if(NOT MINK_INSTALL)
  return()
endif()

# The package advertises project(VERSION); the headers carry MINK_VERSION_*. They must agree,
# or a consumer asking for 0.1 could compile against other headers.
file(STRINGS ${PROJECT_SOURCE_DIR}/include/mink/mink.h _mink_version_lines
     REGEX "^#define MINK_VERSION_(MAJOR|MINOR|PATCH) +[0-9]+")
set(_mink_header_version "")
foreach(_part MAJOR MINOR PATCH)
  string(REGEX MATCH "MINK_VERSION_${_part} +([0-9]+)" _m "${_mink_version_lines}")
  list(APPEND _mink_header_version "${CMAKE_MATCH_1}")
endforeach()
list(JOIN _mink_header_version "." _mink_header_version)
if(NOT _mink_header_version STREQUAL PROJECT_VERSION)
  message(FATAL_ERROR "mink: include/mink/mink.h says version ${_mink_header_version}, "
                      "project() says ${PROJECT_VERSION}; make them agree")
endif()

set(MINK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mink)
get_target_property(MINK_LIBRARY_TYPE mink TYPE)

# kernel/CMakeLists.txt names the installed include directory `include`; with another
# CMAKE_INSTALL_INCLUDEDIR the exported target would point at a missing directory (an
# error in every consumer), so retarget it here.
if(NOT CMAKE_INSTALL_INCLUDEDIR STREQUAL "include")
  get_target_property(_mink_inc mink INTERFACE_INCLUDE_DIRECTORIES)
  string(REPLACE "$<INSTALL_INTERFACE:include>" "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>"
         _mink_inc "${_mink_inc}")
  set_property(TARGET mink PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${_mink_inc}")
endif()

# The exported target keeps `m` as $<LINK_ONLY:m> in INTERFACE_LINK_LIBRARIES when mink is
# static (CMake does that for PRIVATE deps of static libraries), so consumers get -lm.
install(TARGETS mink EXPORT minkTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mink_Development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mink_Runtime
          NAMELINK_COMPONENT mink_Development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT mink_Runtime)

# Public headers only; kernel/*.h are internal. Consumers write #include <mink/mink.h>.
install(FILES ${PROJECT_SOURCE_DIR}/include/mink/mink.h
              ${PROJECT_SOURCE_DIR}/include/mink/mink_ref.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mink COMPONENT mink_Development)

install(EXPORT minkTargets NAMESPACE mink:: FILE minkTargets.cmake
        DESTINATION ${MINK_INSTALL_CMAKEDIR} COMPONENT mink_Development)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/minkConfig.cmake.in
  ${PROJECT_BINARY_DIR}/minkConfig.cmake
  INSTALL_DESTINATION ${MINK_INSTALL_CMAKEDIR})
# Not ARCH_INDEPENDENT: the version file also rejects a 32/64-bit mismatch.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/minkConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${MINK_VERSION_COMPAT})
install(FILES ${PROJECT_BINARY_DIR}/minkConfig.cmake ${PROJECT_BINARY_DIR}/minkConfigVersion.cmake
        DESTINATION ${MINK_INSTALL_CMAKEDIR} COMPONENT mink_Development)

# mink.pc. A static libmink needs libm on every link line, so -lm goes to Libs there;
# a shared one records libm itself (DT_NEEDED), so -lm is only Libs.private (--static).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(MINK_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(MINK_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(MINK_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(MINK_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
if(MINK_LIBRARY_TYPE STREQUAL "STATIC_LIBRARY")
  set(MINK_PC_LIBS_EXTRA " -lm -pthread")
  set(MINK_PC_LIBS_PRIVATE "")
else()
  set(MINK_PC_LIBS_EXTRA "")
  set(MINK_PC_LIBS_PRIVATE "-lm -pthread")
endif()
# The prefix is only known at install time (cmake --install --prefix may override it), so
# fill in everything else now and leave @MINK_PC_PREFIX@ for a second pass at install.
set(MINK_PC_PREFIX "@MINK_PC_PREFIX@")
configure_file(${CMAKE_CURRENT_LIST_DIR}/mink.pc.in ${PROJECT_BINARY_DIR}/mink.pc.stage @ONLY)
install(CODE "
  string(REGEX REPLACE \"/+$\" \"\" MINK_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/mink.pc.stage\" \"${PROJECT_BINARY_DIR}/mink.pc\" @ONLY)
" COMPONENT mink_Development)
install(FILES ${PROJECT_BINARY_DIR}/mink.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT mink_Development)
