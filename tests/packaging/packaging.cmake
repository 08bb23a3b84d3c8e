# The packaging and house-rule checks (included from tests/CMakeLists.txt):
# the installed library from a consumer, instruction-set levels, a Debug
# tree, the documents, the job scripts, and the Python checks that read the
# library's objects, exports, header and recipe.
include(${CMAKE_CURRENT_LIST_DIR}/cli.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/docs.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/jobs.cmake)

if(NOT Python3_Interpreter_FOUND)
  message(WARNING "no Python 3 found: the packaging checks (check_*) are not registered")
  return()
endif()
set(_here ${CMAKE_CURRENT_LIST_DIR})
# No writable global in the library: two runs in two threads or on two
# communicators share nothing.  Reads the objects with objdump.
if(NOT CLASH_TEST_SANITIZED)
  add_test(NAME check_globals COMMAND ${Python3_EXECUTABLE} ${_here}/check_globals.py --self-test
           $<TARGET_OBJECTS:clash_objects> COMMAND_EXPAND_LISTS)
endif()
# The shared library exports exactly the functions clash.h declares: nm -D on
# libclash.so against the header's own declarations.
if(NOT CLASH_TEST_SANITIZED)
  add_test(NAME check_exports COMMAND ${Python3_EXECUTABLE} ${_here}/check_exports.py --self-test
           --nm ${CMAKE_NM} ${PROJECT_SOURCE_DIR}/src/include/clash/clash.h $<TARGET_FILE:clash>)
endif()
# The code in clash.h's opening comment compiles and links against
# libclash.so, so the examples cannot drift from the API.  (Not in sanitizer
# builds: the instrumented library needs its runtime at link time.)
if(NOT CLASH_TEST_SANITIZED)
  add_test(NAME check_header_examples COMMAND ${Python3_EXECUTABLE}
           ${_here}/check_header_examples.py --cc ${CMAKE_C_COMPILER}
           --include ${PROJECT_SOURCE_DIR}/src/include --library $<TARGET_FILE:clash>
           --work ${CMAKE_CURRENT_BINARY_DIR}/header-examples ${PROJECT_SOURCE_DIR}/src/include/clash/clash.h)
endif()
# The Spack recipe jobs/spack/package.py compiles and each of its variants
# switches a real option(CLASH_WITH_...) of CMakeLists.txt.
add_test(NAME spack_recipe COMMAND ${Python3_EXECUTABLE} ${_here}/check_spack_recipe.py
         --self-test ${PROJECT_SOURCE_DIR}/jobs/spack/package.py ${PROJECT_SOURCE_DIR}/CMakeLists.txt
         ${PROJECT_SOURCE_DIR}/src/python/CMakeLists.txt)
# The house rules: no circle between the library's source files, no arrow
# against the layers of src/README.md, no source file without its opening
# comment, no new reach of src/cli/ or bench/ into the library's private
# headers (check_layers.py's header lists the rest; --clients prints, per
# client file, the private headers it still includes).  Reads the objects
# with nm.
add_test(NAME check_layers COMMAND ${Python3_EXECUTABLE} ${_here}/check_layers.py --self-test --clients
         --root ${PROJECT_SOURCE_DIR} $<TARGET_OBJECTS:clash_objects> COMMAND_EXPAND_LISTS)
# No function over 150 lines in src/, kernels/, sched/ (check_source.py's
# header says how it finds them), no tracker references or measured figures
# in their comments, no file misnamed in its opening comment.  Reads the
# source text.
add_test(NAME check_source COMMAND ${Python3_EXECUTABLE} ${_here}/check_source.py --self-test
         --root ${PROJECT_SOURCE_DIR})
foreach(t check_globals check_exports check_header_examples spack_recipe check_layers check_source)
  if(TEST ${t})
    set_tests_properties(${t} PROPERTIES LABELS packaging)
  endif()
endforeach()

# The Python host example users copy: a barrier-style line search on trial
# steps (query, halve, advance) with the pairs within dhat (consumer/line_search.py).
if(CLASH_PY_NUMPY AND NOT CLASH_TEST_SANITIZED)
  add_test(NAME consumer_line_search COMMAND ${CLASH_PY_NUMPY} ${_here}/consumer/line_search.py)
  set_tests_properties(consumer_line_search PROPERTIES TIMEOUT 600 ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python")
else()
  add_test(NAME consumer_line_search COMMAND sh -c "echo 'SKIP: no Python 3 with numpy, or a sanitizer build'; exit 77")
  set_tests_properties(consumer_line_search PROPERTIES SKIP_RETURN_CODE 77)
endif()
