# `clash bench scaling`'s strong and weak studies at 1 and 2 threads (one
# rank: no MPI needed): the configurations' repetitions run in rounds over
# all of them (scaling.yaml's runs, in the order run), the strong rows share
# the serial checksum, and a bad option exits 2.
add_test(NAME bench_scaling_rounds
         COMMAND ${CMAKE_COMMAND} -DCLASH=$<TARGET_FILE:clash_cli> -DWORK=${CMAKE_CURRENT_BINARY_DIR}/bench-scaling
                 -P ${CMAKE_CURRENT_LIST_DIR}/bench_scaling_check.cmake)
set_tests_properties(bench_scaling_rounds PROPERTIES TIMEOUT 300)
