# Install rules for the CMake package: find_package(collc) after
# `cmake --install`. See cmake/collcConfig.cmake.in.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(COLLC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/collc)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/collcConfig.cmake.in
  ${CMAKE_BINARY_DIR}/collcConfig.cmake
  INSTALL_DESTINATION ${COLLC_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/collcConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_BINARY_DIR}/collcConfig.cmake
  ${CMAKE_BINARY_DIR}/collcConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/CollcAddSchedule.cmake
  DESTINATION ${COLLC_CMAKE_DIR})
