# Smoke test of `clash bench scale` (issue 17): the quick suite (10^4 to 10^5
# faces, 3 steps) writes scale.csv with a row per scene and thread count,
# checksums equal at 1 and 2 threads, and scale.yaml says so; a bad option
# exits 2.
add_test(NAME bench_scale_quick
         COMMAND ${CMAKE_COMMAND} -DCLASH=$<TARGET_FILE:clash_cli> -DWORK=${CMAKE_CURRENT_BINARY_DIR}/bench-scale
                 -P ${CMAKE_CURRENT_LIST_DIR}/bench_scale_check.cmake)
set_tests_properties(bench_scale_quick PROPERTIES TIMEOUT 300)
