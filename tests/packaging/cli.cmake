# Command-level and packaging tests (included from tests/CMakeLists.txt).

# An installed clash from a downstream C program: installed into a prefix
# given at install time and moved, then built with pkg-config (shared and
# static) and with find_package(clash) (clash::clash and clash::clash_static).
add_test(NAME install_consumer
  COMMAND ${CMAKE_COMMAND}
    -DBUILD_DIR=${PROJECT_BINARY_DIR}
    -DSOURCE_DIR=${CMAKE_CURRENT_LIST_DIR}/consumer
    -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/consumer-work
    -DC_COMPILER=${CMAKE_C_COMPILER}
    -DPKG_CONFIG=${PKG_CONFIG_EXECUTABLE}
    -DDATA_DIR=${CLASH_DATA_DIR}
    -P ${CMAKE_CURRENT_LIST_DIR}/consumer/run_consumer.cmake)
set_tests_properties(install_consumer PROPERTIES TIMEOUT 600)

# Every instruction-set level this CPU runs gives the portable level's pairs,
# contacts and oracle digest (tests/packaging/isa_levels.sh); and a Debug (-O0) tree
# builds with -Werror and runs the default scene, the oracle and the frames
# tests (tests/packaging/debug_build.sh).
add_test(NAME isa_levels
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/isa_levels.sh $<TARGET_FILE:clash_cli> ${PROJECT_SOURCE_DIR} ${CLASH_DATA_DIR}
          ${PROJECT_BINARY_DIR}/bin)
set_tests_properties(isa_levels PROPERTIES TIMEOUT 1800)
add_test(NAME debug_build
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/debug_build.sh ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/debug-work
          ${CMAKE_C_COMPILER})
set_tests_properties(debug_build PROPERTIES TIMEOUT 1800)
