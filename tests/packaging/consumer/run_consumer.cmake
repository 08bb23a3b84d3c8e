# The test `install_consumer` (cmake -P script; registered in tests/packaging/cli.cmake):
# an installed clash is usable by a downstream C program in each of the four
# ways the README gives, from a prefix chosen at install time that has moved
# since.
#
#   1. cmake --install BUILD_DIR --prefix WORK_DIR/installed (not the
#      configured CMAKE_INSTALL_PREFIX), then the tree is renamed to
#      WORK_DIR/prefix: the pkg-config file and the CMake package must
#      describe wherever they lie, not where they were configured or
#      installed.
#   2. pkg-config (when PKG_CONFIG is given): consumer.c built with
#      `pkg-config --cflags --libs clash` (shared: the program needs
#      libclash.so), and with `pkg-config --static --cflags --libs clash`,
#      -lclash taken as -l:libclash.a (static: every library the archive
#      needs must come from Libs.private, and the program must not need
#      libclash.so).
#   3. find_package(clash): the project beside this script built once with
#      clash::clash (shared) and once with clash::clash_static.
#   4. issue 14's acceptance program (api_equiv.c, the public header alone,
#      built with `pkg-config --cflags --libs clash`): a mesh nobody here
#      made, moved by poses, and a ccd-frames cloth moved by set_vertices,
#      give the same pairs as the installed `clash run` on the equivalent
#      scene files (skipped with a message when DATA_DIR lacks the data).
# Each program runs and must print its summary line; the script fails
# (FATAL_ERROR, non-zero exit) on the first thing that goes wrong.
#
# Inputs: BUILD_DIR, SOURCE_DIR (this folder), WORK_DIR, C_COMPILER,
# PKG_CONFIG (empty: the pkg-config half is skipped with a warning),
# DATA_DIR (../shared/data).
cmake_minimum_required(VERSION 3.25)
set(expect "consumer: clash [0-9.]+, 6 objects, [0-9]+ faces, [0-9]+ pairs in 3 steps")

# Runs a built consumer, checks its line, and checks that it needs
# libclash.so (shared) or not (static) by its recorded dependencies.
function(check_consumer label exe kind libdir)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir} ${exe}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc OR NOT out MATCHES "${expect}")
    message(FATAL_ERROR "${label}: the consumer failed (${rc}):\n${out}${err}")
  endif()
  file(GET_RUNTIME_DEPENDENCIES EXECUTABLES ${exe} DIRECTORIES ${libdir}
    RESOLVED_DEPENDENCIES_VAR deps UNRESOLVED_DEPENDENCIES_VAR missing)
  set(shared_clash "")
  foreach(d IN LISTS deps missing)
    if(d MATCHES "libclash\\.so")
      set(shared_clash "${d}")
    endif()
  endforeach()
  if(kind STREQUAL "shared")
    if(NOT shared_clash MATCHES "^${libdir}/")
      message(FATAL_ERROR "${label}: the program should load ${libdir}/libclash.so, loads '${shared_clash}'")
    endif()
  elseif(shared_clash)
    message(FATAL_ERROR "${label}: a static link, yet the program needs ${shared_clash}")
  endif()
  string(STRIP "${out}" out)
  message(STATUS "${label}: ${out}")
endfunction()

# --- 1. install into a prefix given now, then move it ------------------------------
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/installed
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
file(RENAME ${WORK_DIR}/installed ${WORK_DIR}/prefix)
set(prefix ${WORK_DIR}/prefix)
file(GLOB_RECURSE pcs ${prefix}/*/clash.pc)
file(GLOB_RECURSE archives ${prefix}/*/libclash.a)
if(NOT pcs OR NOT archives)
  message(FATAL_ERROR "clash.pc or libclash.a was not installed under ${prefix}")
endif()
list(GET pcs 0 pc)
get_filename_component(pcdir ${pc} DIRECTORY)
get_filename_component(libdir ${pcdir} DIRECTORY)

# --- 2. pkg-config, shared and static ----------------------------------------------
if(PKG_CONFIG)
  foreach(kind shared static)
    set(static_flag "")
    if(kind STREQUAL "static")
      set(static_flag --static)
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pcdir} PKG_CONFIG_LIBDIR=${pcdir}
      ${PKG_CONFIG} ${static_flag} --cflags --libs clash
      RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc OR NOT flags MATCHES "-lclash")
      message(FATAL_ERROR "pkg-config ${static_flag} --cflags --libs clash failed (${rc}): ${flags}${err}")
    endif()
    message(STATUS "pkg-config ${static_flag} --cflags --libs clash: ${flags}")
    separate_arguments(args UNIX_COMMAND "${flags}")
    if(kind STREQUAL "static")
      list(TRANSFORM args REPLACE "^-lclash$" "-l:libclash.a")
    endif()
    set(exe ${WORK_DIR}/pc-${kind}/consumer)
    file(MAKE_DIRECTORY ${WORK_DIR}/pc-${kind})
    execute_process(COMMAND ${C_COMPILER} -std=c11 ${SOURCE_DIR}/consumer.c -o ${exe} ${args}
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(rc)
      string(SUBSTRING "${err}" 0 3000 err)
      message(FATAL_ERROR "pkg-config ${kind}: building the consumer failed (${rc}):\n${out}${err}")
    endif()
    check_consumer("pkg-config ${kind}" ${exe} ${kind} ${libdir})
  endforeach()
else()
  message(WARNING "no pkg-config: the pkg-config consumers are not built")
endif()

# --- 3. find_package(clash), shared and static --------------------------------------
foreach(kind shared static)
  set(target clash::clash)
  if(kind STREQUAL "static")
    set(target clash::clash_static)
  endif()
  set(bdir ${WORK_DIR}/cmake-${kind})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${bdir} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=${C_COMPILER} -DCLASH_TARGET=${target}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "find_package ${kind}: configuring the consumer failed (${rc}):\n${out}${err}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${bdir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    string(SUBSTRING "${out}${err}" 0 3000 out)
    message(FATAL_ERROR "find_package ${kind}: building the consumer failed (${rc}):\n${out}")
  endif()
  check_consumer("find_package ${kind} (${target})" ${bdir}/consumer ${kind} ${libdir})
endforeach()

# --- 4. the in-memory API against scene files, on the installed clash -----------------
set(mesh ${DATA_DIR}/meshes/cow.obj)
set(f0 ${DATA_DIR}/ccd-frames/cloth-funnel/frames/227.ply)
set(f1 ${DATA_DIR}/ccd-frames/cloth-funnel/frames/228.ply)
if(NOT PKG_CONFIG)
  message(WARNING "no pkg-config: api_equiv is not built")
elseif(NOT DATA_DIR OR NOT EXISTS ${mesh} OR NOT EXISTS ${f1})
  message(STATUS "api_equiv: SKIPPED, the shared data (${mesh}, ${f1}) is missing")
else()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pcdir} PKG_CONFIG_LIBDIR=${pcdir}
    ${PKG_CONFIG} --cflags --libs clash OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
  separate_arguments(args UNIX_COMMAND "${flags}")
  file(MAKE_DIRECTORY ${WORK_DIR}/api)
  execute_process(COMMAND ${C_COMPILER} -std=c11 -D_POSIX_C_SOURCE=200809L ${SOURCE_DIR}/api_equiv.c
    -o ${WORK_DIR}/api/api_equiv ${args} -lm RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "api_equiv: building failed (${rc}):\n${out}${err}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${libdir}
    ${WORK_DIR}/api/api_equiv ${prefix}/bin/clash ${mesh} ${WORK_DIR}/api ${f0} ${f1}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(STRIP "${out}" out)
  if(rc)
    message(FATAL_ERROR "api_equiv failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endif()
message(STATUS "install_consumer: every consumer built and ran")
