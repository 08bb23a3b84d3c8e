# Command-level and packaging tests (included from tests/CMakeLists.txt).

# find_package(clash) from a downstream project against a fresh install.
add_test(NAME install_consumer
  COMMAND ${CMAKE_COMMAND}
    -DBUILD_DIR=${PROJECT_BINARY_DIR}
    -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}/consumer
    -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/consumer-work
    -P ${CMAKE_CURRENT_SOURCE_DIR}/consumer/run_consumer.cmake)
set_tests_properties(install_consumer PROPERTIES TIMEOUT 300 PASS_REGULAR_EXPRESSION "consumer: clash [0-9.]+, 6 objects")
