# The host examples of tests/packaging/consumer/ (issue 14), built against the shared
# library of this build tree with nothing but the public header, and run on
# the shared data (skipped, 77, when ../shared/data is missing):
#   rigid_host   rigid bodies from mesh files, gravity and a floor, poses by the host
#   deform_host  the ccd-frames simulations fed vertex by vertex
#   spawn_host   balls spawned and removed while it runs, a jointed pair excluded,
#                debris filtered against debris (generated meshes: no data needed)
foreach(ex rigid_host deform_host spawn_host)
  add_executable(${ex} ${CMAKE_CURRENT_LIST_DIR}/../packaging/consumer/${ex}.c)
  target_compile_options(${ex} PRIVATE ${CLASH_WARN})
  target_link_libraries(${ex} PRIVATE clash m)
endforeach()

function(clash_example name first)
  add_test(NAME ${name} COMMAND sh -c "test -e \"$1\" || { echo \"SKIP: $1 is missing\"; exit 77; }; shift; exec \"$@\""
           sh ${first} ${ARGN})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

set(_m ${CLASH_DATA_DIR}/meshes)
set(_f ${CLASH_DATA_DIR}/ccd-frames)
clash_example(example_rigid_host ${_m}/spot.obj $<TARGET_FILE:rigid_host> ${_m}/spot.obj ${_m}/suzanne.obj)
clash_example(example_deform_host_cloth ${_f}/cloth-funnel/frames/227.ply $<TARGET_FILE:deform_host>
              ${_f}/cloth-funnel/frames/227.ply ${_f}/cloth-funnel/frames/228.ply 4)
clash_example(example_deform_host_armadillo ${_f}/armadillo-rollers/frames/326.ply $<TARGET_FILE:deform_host>
              ${_f}/armadillo-rollers/frames/326.ply ${_f}/armadillo-rollers/frames/327.ply 3)
add_test(NAME example_spawn_host COMMAND spawn_host)
set_tests_properties(example_spawn_host PROPERTIES TIMEOUT 300)
