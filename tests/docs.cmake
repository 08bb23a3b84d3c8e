# The documents say what the code does (issue 20; tests/docs_test.sh):
#   docs_bench_csv  every bench CSV column is documented in the README
#   docs_results    bench/RESULTS.md: results with commands and dates only
foreach(m IN ITEMS bench-csv results)
  string(REPLACE "-" "_" n "${m}")
  add_test(NAME docs_${n} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/docs_test.sh ${m} ${PROJECT_SOURCE_DIR})
  set_tests_properties(docs_${n} PROPERTIES TIMEOUT 60)
endforeach()
