# The installed package: `cmake --install <build> --prefix P` puts the duet
# tool and the runtime's own tool duet-run in P/bin, the API headers in
# P/include/duet, one static library per
# public target in P/lib, the Vulkan device profiles in P/share/duet/profiles
# and a CMake package in P/lib/cmake/duet, so that another project can write
#
#   find_package(duet REQUIRED)
#   target_link_libraries(app PRIVATE duet::runtime)      # or duet::compiler
#   duet_compile_model(model MODEL m.pt2 OUTPUT m.duet)   # a build step
#
# Each public target is installed as one archive holding the objects of every
# static library of this project it links, so the package does not export the
# internal libraries (their include paths point into the source tree) and
# stays the same when they are split or renamed. Link items from outside the
# project are carried over: packages the config finds again (fmt, Threads)
# by target name, and other imported libraries (libMLIR.so, libLLVM.so,
# minizip) by file.
#
# Included from the top-level CMakeLists.txt after every library is defined.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Packages whose imported targets a consumer gets back from find_dependency:
# their targets stay targets in the installed interface.
set(DUET_PACKAGE_KEPT_NAMESPACES fmt Threads)

# Walks the link closure of `root`: `out_static` gets every static library
# target of this project it reaches, `out_external` the link items from
# outside (kept imported targets, files of other imported libraries, plain
# library names and flags), both in first-seen order.
function(duet_link_closure root out_static out_external)
  set(queue ${root})
  set(seen "")
  set(static "")
  set(external "")
  while(queue)
    list(POP_FRONT queue item)
    # A static library's private dependencies appear as $<LINK_ONLY:x>, and
    # target_link_libraries called from another folder brackets its items
    # with ::@(directory) markers.
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" item "${item}")
    if(item STREQUAL "" OR item MATCHES "^::@")
      continue()
    endif()
    if(item MATCHES "\\$<")
      message(FATAL_ERROR "duet package: cannot carry the link item '${item}' "
                          "(reached from ${root}) into the installed package; "
                          "link it without a generator expression")
    endif()
    if(item IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${item}")
    if(NOT TARGET "${item}")
      if(item MATCHES "::")
        message(FATAL_ERROR "duet package: ${root} links ${item}, a target "
                            "not visible here; make it GLOBAL (imported "
                            "targets are local to their folder by default)")
      endif()
      list(APPEND external "${item}")
      continue()
    endif()
    get_target_property(aliased "${item}" ALIASED_TARGET)
    if(aliased)
      list(APPEND queue "${aliased}")
      continue()
    endif()
    get_target_property(type "${item}" TYPE)
    get_target_property(imported "${item}" IMPORTED)
    get_target_property(interface "${item}" INTERFACE_LINK_LIBRARIES)
    if(NOT interface)
      set(interface "")
    endif()
    if(imported)
      string(REGEX REPLACE "::.*$" "" namespace "${item}")
      if(item MATCHES "::" AND namespace IN_LIST DUET_PACKAGE_KEPT_NAMESPACES)
        list(APPEND external "${item}")
        continue()
      endif()
      if(type MATCHES "^(SHARED|STATIC|UNKNOWN)_LIBRARY$")
        list(APPEND external "$<TARGET_FILE:${item}>")
      endif()
      list(APPEND queue ${interface})
    elseif(type STREQUAL "STATIC_LIBRARY")
      list(APPEND static "${item}")
      list(APPEND queue ${interface})
    elseif(type STREQUAL "INTERFACE_LIBRARY")
      list(APPEND queue ${interface})
    else()
      message(FATAL_ERROR "duet package: ${root} links ${item}, a ${type}; "
                          "the installed archives hold static libraries only")
    endif()
  endwhile()
  set(${out_static} ${static} PARENT_SCOPE)
  set(${out_external} ${external} PARENT_SCOPE)
endfunction()

# Makes the archive lib<name>.a from the objects of `static` (a list of
# static library targets).
function(duet_bundle_archive target name static)
  set(objects "")
  foreach(lib ${static})
    list(APPEND objects "$<TARGET_OBJECTS:${lib}>")
  endforeach()
  add_library(${target} STATIC ${objects})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${name}
    LINKER_LANGUAGE CXX
    ARCHIVE_OUTPUT_DIRECTORY ${DUET_BINARY_DIR}/package/lib)
  install(TARGETS ${target} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()

# The runtime archive, then the compiler archive without what the runtime
# archive already holds (the compiler's interface links duet::runtime).
duet_link_closure(duet_runtime_api runtime_static runtime_external)
duet_link_closure(duet_compiler_api compiler_static compiler_external)
# The runtime is embedded in applications without the compiler: nothing it
# links may bring LLVM or MLIR (test/integration checks the linked binary).
foreach(item ${runtime_static} ${runtime_external})
  if(item MATCHES "MLIR|LLVM")
    message(FATAL_ERROR "duet package: the runtime (duet_runtime_api) links "
                        "${item}; the runtime must not depend on LLVM or MLIR")
  endif()
endforeach()
foreach(item ${runtime_static} ${runtime_external})
  list(REMOVE_ITEM compiler_static "${item}")
  list(REMOVE_ITEM compiler_external "${item}")
endforeach()
duet_bundle_archive(duet_runtime_package duet_runtime "${runtime_static}")
duet_bundle_archive(duet_compiler_package duet_compiler "${compiler_static}")

# The find_dependency calls the config needs: one per kept package linked.
set(DUET_PACKAGE_DEPENDENCIES "")
foreach(namespace ${DUET_PACKAGE_KEPT_NAMESPACES})
  if("${runtime_external};${compiler_external}" MATCHES "(^|;)${namespace}::")
    string(APPEND DUET_PACKAGE_DEPENDENCIES "find_dependency(${namespace})\n")
  endif()
endforeach()

# The imported targets, written at generate time so that the files of
# imported libraries are resolved for this build's configuration.
set(prefix "\${_duet_prefix}")
set(libdir "${prefix}/${CMAKE_INSTALL_LIBDIR}")
string(CONCAT DUET_TARGETS_TEXT
  "# Generated by duet's cmake/DuetPackage.cmake; included by duetConfig.cmake.\n"
  "add_library(duet::runtime STATIC IMPORTED)\n"
  "set_target_properties(duet::runtime PROPERTIES\n"
  "  IMPORTED_LOCATION \"${libdir}/libduet_runtime.a\"\n"
  "  IMPORTED_LINK_INTERFACE_LANGUAGES CXX\n"
  "  INTERFACE_INCLUDE_DIRECTORIES \"${prefix}/${CMAKE_INSTALL_INCLUDEDIR}\"\n"
  "  INTERFACE_COMPILE_FEATURES cxx_std_17\n"
  "  INTERFACE_LINK_LIBRARIES \"${runtime_external}\")\n"
  "add_library(duet::compiler STATIC IMPORTED)\n"
  "set_target_properties(duet::compiler PROPERTIES\n"
  "  IMPORTED_LOCATION \"${libdir}/libduet_compiler.a\"\n"
  "  IMPORTED_LINK_INTERFACE_LANGUAGES CXX\n"
  "  INTERFACE_INCLUDE_DIRECTORIES \"${prefix}/${CMAKE_INSTALL_INCLUDEDIR}\"\n"
  "  INTERFACE_COMPILE_FEATURES cxx_std_17\n"
  "  INTERFACE_LINK_LIBRARIES \"duet::runtime;${compiler_external}\")\n"
  "add_executable(duet::duet IMPORTED)\n"
  "set_target_properties(duet::duet PROPERTIES\n"
  "  IMPORTED_LOCATION \"${prefix}/${CMAKE_INSTALL_BINDIR}/duet\")\n"
  "add_executable(duet::duet-run IMPORTED)\n"
  "set_target_properties(duet::duet-run PROPERTIES\n"
  "  IMPORTED_LOCATION \"${prefix}/${CMAKE_INSTALL_BINDIR}/duet-run\")\n")
set(DUET_PACKAGE_DIR ${DUET_BINARY_DIR}/package)
file(GENERATE OUTPUT ${DUET_PACKAGE_DIR}/duetTargets.cmake
     CONTENT "${DUET_TARGETS_TEXT}")

set(DUET_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/duet)
set(DUET_INSTALL_PROFILESDIR ${CMAKE_INSTALL_DATADIR}/duet/profiles)
configure_package_config_file(
  ${DUET_SOURCE_DIR}/cmake/duetConfig.cmake.in
  ${DUET_PACKAGE_DIR}/duetConfig.cmake
  INSTALL_DESTINATION ${DUET_INSTALL_CMAKEDIR}
  PATH_VARS DUET_INSTALL_PROFILESDIR)
write_basic_package_version_file(${DUET_PACKAGE_DIR}/duetConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)

install(FILES
  ${DUET_PACKAGE_DIR}/duetConfig.cmake
  ${DUET_PACKAGE_DIR}/duetConfigVersion.cmake
  ${DUET_PACKAGE_DIR}/duetTargets.cmake
  ${DUET_SOURCE_DIR}/cmake/DuetCompileModel.cmake
  DESTINATION ${DUET_INSTALL_CMAKEDIR})
install(DIRECTORY ${DUET_SOURCE_DIR}/include/duet
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")

# The tool finds libMLIR.so and libLLVM.so where it was linked against them.
# duet-run links the runtime only; the shared libraries it needs (fmt,
# XNNPACK, pthreadpool, cpuinfo) are the system's.
set_target_properties(duet PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS duet duet-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The same names inside this build, so that in-tree users and the installed
# package read alike.
add_executable(duet::duet ALIAS duet)
add_executable(duet::duet-run ALIAS duet-run)
include(${DUET_SOURCE_DIR}/cmake/DuetCompileModel.cmake)
