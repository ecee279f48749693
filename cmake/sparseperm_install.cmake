# Install rules and the find_package(sparseperm CONFIG) package.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS sparseperm EXPORT sparseperm-targets)
install(DIRECTORY include/sparseperm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT sparseperm-targets
        NAMESPACE sparseperm::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sparseperm)
# sparseperm::hana (Boost.Hana) in a file of its own, which the package loads only where Boost is found
if(TARGET sparseperm_hana)
  install(TARGETS sparseperm_hana EXPORT sparseperm-hana-targets)
  install(EXPORT sparseperm-hana-targets
          NAMESPACE sparseperm::
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sparseperm)
endif()

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/sparseperm-config.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/sparseperm-config.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sparseperm)
# Header-only and free of ABI: any compiler may use it.
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/sparseperm-config-version.cmake
  COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES
  ${CMAKE_CURRENT_LIST_DIR}/sparseperm_add_matrix.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/sparseperm-config.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/sparseperm-config-version.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/sparseperm)
