# asc_logging: fmt and spdlog, header-only. Both come from their CMake packages (Debian's libfmt-dev and
# libspdlog-dev); their compiled shared libraries are not linked, so libasc.so depends on neither at run time
# (the wheel ships libasc.so alone). spdlog::spdlog_header_only is not used as it stands: it links fmt::fmt,
# the shared library.
add_library(asc_logging INTERFACE)
get_target_property(asc_spdlog_includes spdlog::spdlog_header_only INTERFACE_INCLUDE_DIRECTORIES)
get_target_property(asc_spdlog_defines spdlog::spdlog_header_only INTERFACE_COMPILE_DEFINITIONS)
if(asc_spdlog_includes)
  target_include_directories(asc_logging SYSTEM INTERFACE ${asc_spdlog_includes})
endif()
if(asc_spdlog_defines)
  target_compile_definitions(asc_logging INTERFACE ${asc_spdlog_defines})
endif()
target_link_libraries(asc_logging INTERFACE fmt::fmt-header-only Threads::Threads)
