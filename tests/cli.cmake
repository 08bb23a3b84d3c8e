# Command-level and packaging tests (included from tests/CMakeLists.txt).

# An installed clash from a downstream C program: installed into a prefix
# given at install time and moved, then built with pkg-config (shared and
# static) and with find_package(clash) (clash::clash and clash::clash_static).
add_test(NAME install_consumer
  COMMAND ${CMAKE_COMMAND}
    -DBUILD_DIR=${PROJECT_BINARY_DIR}
    -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}/consumer
    -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/consumer-work
    -DC_COMPILER=${CMAKE_C_COMPILER}
    -DPKG_CONFIG=${PKG_CONFIG_EXECUTABLE}
    -DDATA_DIR=${CLASH_DATA_DIR}
    -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/run_consumer.cmake)
set_tests_properties(install_consumer PROPERTIES TIMEOUT 600)
