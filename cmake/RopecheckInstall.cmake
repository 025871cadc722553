# Install and export, so another project can find_package(ropecheck) and link
# ropecheck::reference and ropecheck::core to gate its own kernel in its CI.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Installed names match the in-tree aliases (ropecheck::core, ...).
foreach(part abi reference core impls properties)
  set_target_properties(ropecheck_${part} PROPERTIES EXPORT_NAME ${part})
endforeach()

install(DIRECTORY include/ reference/include/ properties/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ropecheck_abi ropecheck_reference ropecheck_core ropecheck_impls ropecheck_properties
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
