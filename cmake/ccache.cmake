# Compiles through ccache when it is installed (scripts/setup.sh installs it). Paths are hashed relative to the
# source tree (CCACHE_BASEDIR), so another checkout's build at the same place inside it (e.g. the wheel check's
# clean clone, scripts/wheel_check.sh) reuses these objects. ASC_CCACHE=OFF, or a launcher given on the command
# line, turns it off.
option(ASC_CCACHE "Compile through ccache when it is installed" ON)
find_program(ASC_CCACHE_PROGRAM ccache)
if(ASC_CCACHE AND ASC_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} ${ASC_CCACHE_PROGRAM})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_C_COMPILER_LAUNCHER})
endif()
