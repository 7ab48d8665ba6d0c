# Install rules and the CMake package: an out-of-tree project does
#   find_package(miopen REQUIRED)
#   target_link_libraries(app PRIVATE MIOpen)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS MIOpen anydnn_af EXPORT miopen-targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES
  ${PROJECT_SOURCE_DIR}/include/miopen/miopen.h
  ${PROJECT_SOURCE_DIR}/include/miopen/miopen_batchnorm.h
  ${PROJECT_SOURCE_DIR}/include/miopen/miopen_rnn.h
  ${PROJECT_SOURCE_DIR}/include/miopen/miopen_pooling.h
  ${PROJECT_SOURCE_DIR}/include/miopen/miopen_softmax.h
  ${PROJECT_SOURCE_DIR}/include/miopen/miopen_lrn.h
  ${PROJECT_SOURCE_DIR}/include/miopen/miopen_ctc.h
  ${PROJECT_SOURCE_DIR}/include/miopen/miopen_fusion.h
  ${PROJECT_SOURCE_DIR}/include/miopen/miopen_find2.h
  ${PROJECT_SOURCE_DIR}/include/miopen/export.h
  ${PROJECT_SOURCE_DIR}/include/miopen/anydnn.h
  ${CMAKE_BINARY_DIR}/include/miopen/version.h
  ${CMAKE_BINARY_DIR}/include/miopen/config.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/miopen)
install(FILES ${PROJECT_SOURCE_DIR}/include/anydnn/convolve2nn.h
  ${PROJECT_SOURCE_DIR}/include/anydnn/convolve2nn.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/anydnn)
install(TARGETS MIOpenDriver RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The library finds OpenBLAS through an absolute path; keep that path in the installed RUNPATH.
set_target_properties(MIOpen PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
set_target_properties(MIOpenDriver PROPERTIES
  INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}" INSTALL_RPATH_USE_LINK_PATH ON)

set(MIOPEN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/miopen)
install(EXPORT miopen-targets NAMESPACE MIOpen:: DESTINATION ${MIOPEN_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/miopen-config.cmake.in
  ${CMAKE_BINARY_DIR}/miopen-config.cmake INSTALL_DESTINATION ${MIOPEN_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/miopen-config-version.cmake
  VERSION ${MIOPEN_VERSION_MAJOR}.${MIOPEN_VERSION_MINOR}.${MIOPEN_VERSION_PATCH}
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/miopen-config.cmake ${CMAKE_BINARY_DIR}/miopen-config-version.cmake
  DESTINATION ${MIOPEN_CMAKE_DIR})
