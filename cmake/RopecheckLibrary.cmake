# One line per library: ropecheck_library(<short> SOURCES ... [PUBLIC ...]
# [PRIVATE ...]) defines ropecheck_<short> with the alias and export name
# ropecheck::<short>. In the tree every header is included by its path from
# the repository root ("core/cases/cases.h"); installed, the same paths live under
# <prefix>/include/ropecheck (cmake/RopecheckInstall.cmake).
function(ropecheck_library short)
  cmake_parse_arguments(L "" "" "SOURCES;PUBLIC;PRIVATE" ${ARGN})
  set(name ropecheck_${short})
  add_library(${name} STATIC ${L_SOURCES})
  add_library(ropecheck::${short} ALIAS ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${short})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:include/ropecheck>)
  target_link_libraries(${name} PUBLIC ropecheck_abi ${L_PUBLIC} PRIVATE ${L_PRIVATE})
  ropecheck_warnings(${name})
endfunction()
