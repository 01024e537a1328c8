# duet_compile_model: compile a torch.export model into a .duet program as a
# build step.
#
#   duet_compile_model(<target>
#     MODEL <model.pt2>              # relative: to the current source folder
#     OUTPUT <model.duet>            # relative: to the current build folder
#     [BACKENDS <backend>...]        # priority order: vulkan xnnpack portable
#     [PLACEMENT priority|cost]      # default: priority with BACKENDS, else cost
#     [TEXTURE_LIMITS <x,y,z>]       # or three values: x y z
#     [PROFILE <name or file.json>]  # the target device's profile: limits, costs
#     [REPORT <report.json>]         # also write the placement report
#     [ENABLE_BF16]                  # let XNNPACK take bf16 ops
#     [STRICT])                      # fail when an op falls to portable
#
# Makes the custom target <target> (built by default; add_dependencies() on
# it orders an application after the program exists). The step runs
# `duet compile` again only when the model, a profile file, the duet tool or
# the options change: the options are written to a file that is rewritten
# only when they differ, and the step depends on that file. Uses the
# executable target duet::duet (the installed tool, or the one being built).
# Without BACKENDS and PROFILE, `duet compile` plans for the machine the build
# runs on (docs/cli.md); a build step for another device names its PROFILE.

function(duet_compile_model target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "ENABLE_BF16;STRICT"
                        "MODEL;OUTPUT;PROFILE;REPORT;PLACEMENT"
                        "BACKENDS;TEXTURE_LIMITS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "duet_compile_model(${target}): unknown arguments "
                        "'${ARG_UNPARSED_ARGUMENTS}'")
  endif()
  foreach(required MODEL OUTPUT)
    if(NOT ARG_${required})
      message(FATAL_ERROR "duet_compile_model(${target}): ${required} is "
                          "required")
    endif()
  endforeach()
  if(NOT TARGET duet::duet)
    message(FATAL_ERROR "duet_compile_model(${target}): the duet::duet tool "
                        "target is missing; call find_package(duet) first")
  endif()

  get_filename_component(model "${ARG_MODEL}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(output "${ARG_OUTPUT}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  set(outputs "${output}")
  set(depends "${model}")
  set(options "")
  if(ARG_BACKENDS)
    list(JOIN ARG_BACKENDS "," backends)
    list(APPEND options --backends "${backends}")
  endif()
  if(ARG_PLACEMENT)
    if(NOT ARG_PLACEMENT MATCHES "^(priority|cost)$")
      message(FATAL_ERROR "duet_compile_model(${target}): PLACEMENT takes "
                          "priority or cost, got '${ARG_PLACEMENT}'")
    endif()
    list(APPEND options --placement "${ARG_PLACEMENT}")
  endif()
  if(ARG_TEXTURE_LIMITS)
    list(JOIN ARG_TEXTURE_LIMITS "," limits)
    if(NOT limits MATCHES "^[0-9]+,[0-9]+,[0-9]+$")
      message(FATAL_ERROR "duet_compile_model(${target}): TEXTURE_LIMITS "
                          "takes three positive integers x,y,z, got "
                          "'${ARG_TEXTURE_LIMITS}'")
    endif()
    list(APPEND options --texture-limits "${limits}")
  endif()
  if(ARG_PROFILE)
    # The tool reads a value with a '/' or ending in .json as a file.
    if(ARG_PROFILE MATCHES "/|\\.json$")
      get_filename_component(profile "${ARG_PROFILE}" ABSOLUTE
                             BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      list(APPEND depends "${profile}")
    else()
      set(profile "${ARG_PROFILE}")
    endif()
    list(APPEND options --target-profile "${profile}")
  endif()
  if(ARG_REPORT)
    get_filename_component(report "${ARG_REPORT}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    list(APPEND options --report "${report}")
    list(APPEND outputs "${report}")
  endif()
  if(ARG_ENABLE_BF16)
    list(APPEND options --enable-bf16)
  endif()
  if(ARG_STRICT)
    list(APPEND options --strict)
  endif()

  # The command line, minus the tool, in a file whose time changes only
  # when its text does.
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/duet_compile_model/${target}.options")
  list(JOIN options "\n" text)
  file(CONFIGURE OUTPUT "${stamp}"
       CONTENT "${model}\n${output}\n${text}\n" @ONLY)
  list(APPEND depends "${stamp}" duet::duet)

  get_filename_component(output_dir "${output}" DIRECTORY)
  file(MAKE_DIRECTORY "${output_dir}")
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND duet::duet compile "${model}" -o "${output}" ${options} --quiet
    DEPENDS ${depends}
    COMMENT "duet: compiling ${ARG_MODEL} into ${ARG_OUTPUT}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${outputs})
endfunction()
