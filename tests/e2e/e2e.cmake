# The end-to-end tests that are cmake -P scripts (included from
# tests/CMakeLists.txt): the bench suites' smoke tests.
include(${CMAKE_CURRENT_LIST_DIR}/bench_fig43.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/bench_scale.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/bench_seeds.cmake)
