# SPDX-License-Identifier: MIT
# Compiles through ccache when it is installed (scripts/setup.sh installs it)
# and no launcher was chosen (C, C++ and CUDA; CMAKE_<LANG>_COMPILER_LAUNCHER, as a variable or
# the environment variable of that name, wins). CCACHE_BASEDIR is the
# repository root, so a build tree at the same depth with the same flags
# (the `pip install .` build in build/pip, or build/release-pip beside
# build/release in ctest pip_install) gets the release tree's objects as cache
# hits instead of compiling the library again. The fuzz preset turns it off:
# nothing reuses its objects in CI, where a miss costs a preprocessor run
# (about 6% of a compile, bench/RESULTS.md).
option(ROPECHECK_CCACHE "Compile through ccache when it is installed" ON)
if(ROPECHECK_CCACHE)
  find_program(ROPECHECK_CCACHE_PROGRAM ccache)
  if(ROPECHECK_CCACHE_PROGRAM)
    foreach(lang C CXX CUDA)
      if(NOT CMAKE_${lang}_COMPILER_LAUNCHER)
        set(CMAKE_${lang}_COMPILER_LAUNCHER
          ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} ${ROPECHECK_CCACHE_PROGRAM})
      endif()
    endforeach()
  endif()
endif()
