# The end-to-end tests that are cmake -P scripts (included from
# tests/CMakeLists.txt): the bench suites' smoke tests.
include(${CMAKE_CURRENT_LIST_DIR}/bench_bbox.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/bench_fig43.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/bench_scale.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/bench_scaling.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/bench_seeds.cmake)

# Generated CCD scenes against their own ground truth (bench/framesgen.py):
# a flat cloth falling onto a sphere, and rigid copies of a shared mesh
# meeting in pairs (skipped, 77, without ../shared/data's spot.obj).
if(Python3_Interpreter_FOUND)
  foreach(_kind cloth rigid)
    set(_extra "")
    if(_kind STREQUAL "rigid")
      set(_extra ${CLASH_DATA_DIR}/meshes/spot.obj)
    endif()
    add_test(NAME ccd_generated_${_kind} COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/ccd_generated.py
             ${_kind} $<TARGET_FILE:clash_cli> ${PROJECT_SOURCE_DIR}/bench/framesgen.py
             ${CMAKE_CURRENT_BINARY_DIR}/ccd_generated_${_kind} ${_extra})
    set_tests_properties(ccd_generated_${_kind} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS e2e)
  endforeach()
endif()
