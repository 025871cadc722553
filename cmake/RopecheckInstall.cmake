# SPDX-License-Identifier: MIT
# Install and export, so another project can find_package(ropecheck) and gate
# its own kernel in its CI (examples/consumer), or build a plugin against the
# C ABI (examples/plugin). Headers keep their paths from the repository root
# under <prefix>/include/ropecheck ("core/cases/cases.h"), next to the public ABI
# headers in <prefix>/include/ropecheck ("ropecheck/kernel_abi.h").
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(dir reference core properties gate impls)
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ropecheck/${dir}
    FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh" PATTERN "test" EXCLUDE)
endforeach()
install(TARGETS ropecheck_abi ropecheck_reference ropecheck_kernel_support ropecheck_policy_kernels ropecheck_impls
  ropecheck_core
  ropecheck_properties ropecheck_gate
  EXPORT ropecheckTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET ropecheck)
  install(TARGETS ropecheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT ropecheckTargets NAMESPACE ropecheck::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ropecheck)
configure_package_config_file(cmake/ropecheckConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ropecheckConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ropecheck)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ropecheckConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ropecheckConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/ropecheckConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ropecheck)
