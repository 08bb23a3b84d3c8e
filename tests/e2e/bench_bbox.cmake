# `clash bench bbox` on every face order, with and without the run's Morton
# reordering: the boxes, hashed in the input numbering, must be the same for
# every order, store order, backend, partition, team and store kind
# (bbox.yaml's validation), every configuration must have its row, and bad
# option values exit 2.
add_test(NAME bench_bbox_orders
         COMMAND ${CMAKE_COMMAND} -DCLASH=$<TARGET_FILE:clash_cli> -DWORK=${CMAKE_CURRENT_BINARY_DIR}/bench-bbox
                 -P ${CMAKE_CURRENT_LIST_DIR}/bench_bbox_check.cmake)
set_tests_properties(bench_bbox_orders PROPERTIES TIMEOUT 300)
