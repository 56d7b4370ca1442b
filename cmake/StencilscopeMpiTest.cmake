# The tests that run under mpirun (tests/CMakeLists.txt includes this). Each is a CTest
# case running `mpirun -np N` on the CPU backend, on this host only: the shared-memory
# and self transports for the data, loopback for the launcher's own messages (nothing
# leaves the host), oversubscribed (CI has 2 cores),
# one OpenMP thread per rank, a timeout so that a hang fails instead of waiting, and
# a resource lock so that two such jobs never share the cores. Without MPI one case
# says so and is reported as skipped.
if(NOT STENCILSCOPE_WITH_MPI)
  add_test(NAME mpi_tests_skipped
           COMMAND ${CMAKE_COMMAND} -E echo "skipped: MPI is not built (STENCILSCOPE_MPI off or MPI not found)")
  set_tests_properties(mpi_tests_skipped PROPERTIES LABELS "host;mpi" SKIP_REGULAR_EXPRESSION "skipped: MPI is not built")
  return()
endif()

# Open MPI's launcher wants to be told that root may run it (containers and CI run as root)
# and that more ranks than cores are fine; -q leaves out its banner when a rank fails.
set(STENCILSCOPE_MPIEXEC_FLAGS "")
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _mpiexec_version ERROR_QUIET)
if(_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(STENCILSCOPE_MPIEXEC_FLAGS --oversubscribe --allow-run-as-root -q --mca btl self,vader)
endif()
set(STENCILSCOPE_MPI_ENV
    OMP_NUM_THREADS=1
    OMPI_MCA_btl_vader_single_copy_mechanism=none  # no CMA/ptrace between ranks: not allowed in containers
    OMPI_MCA_rmaps_base_oversubscribe=1
    OMPI_MCA_oob_tcp_if_include=lo                 # the launcher talks to its ranks on loopback only
    OMPI_MCA_plm_rsh_agent=false)                  # never reach for ssh: every rank is local

find_package(GTest REQUIRED)
add_executable(test_distributed_mpi mpi/test_distributed_mpi.cpp)
target_link_libraries(test_distributed_mpi PRIVATE sim_dist GTest::gtest fmt::fmt)
target_compile_options(test_distributed_mpi PRIVATE -Wall -Wextra)
if(STENCILSCOPE_CUDA)  # the GPU transports against the host exchange (skipped without a device)
  target_link_libraries(test_distributed_mpi PRIVATE CUDA::cudart)
  target_compile_definitions(test_distributed_mpi PRIVATE STENCILSCOPE_TEST_CUDA)
endif()
# np 8 (issue 21: the 8-rank decompositions, 2x2x2 among them, on the CPU) oversubscribes
# CI's two cores four times over: about 20 s.
foreach(n 2 3 4 8)
  add_test(NAME mpi_distributed_np${n}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${STENCILSCOPE_MPIEXEC_FLAGS}
                   $<TARGET_FILE:test_distributed_mpi>)
  set_tests_properties(mpi_distributed_np${n} PROPERTIES LABELS "host;mpi" TIMEOUT 300 RESOURCE_LOCK mpi
                       PROCESSORS ${n} ENVIRONMENT "${STENCILSCOPE_MPI_ENV}")
endforeach()

# GPU boxes: N ranks on the GPUs (local rank modulo the node's GPUs) against one GPU, bit
# for bit, with each halo transport. Label gpu: skipped (and said so) without a CUDA device
# or, for nccl, without NCCL or with ranks sharing a GPU (np 3 on two GPUs, np 2 on one;
# np 4 through NCCL needs four GPUs: nvidia-h200-x4). peer (CUDA IPC, the copy engines) runs
# with ranks sharing a GPU too.
add_executable(test_gpu_boxes_mpi mpi/test_gpu_boxes_mpi.cpp)
target_link_libraries(test_gpu_boxes_mpi PRIVATE sim_dist GTest::gtest fmt::fmt)
target_compile_options(test_gpu_boxes_mpi PRIVATE -Wall -Wextra)
foreach(run 2_staged 2_nccl 3_staged 4_nccl 2_peer 3_peer 4_peer)
  string(REGEX REPLACE "_.*" "" n ${run})
  string(REGEX REPLACE ".*_" "" transport ${run})
  add_test(NAME mpi_gpu_boxes_np${run}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${STENCILSCOPE_MPIEXEC_FLAGS}
                   $<TARGET_FILE:test_gpu_boxes_mpi>)
  set_tests_properties(mpi_gpu_boxes_np${run} PROPERTIES LABELS "gpu;mpi" TIMEOUT 300 RESOURCE_LOCK mpi
                       PROCESSORS ${n} SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
                       ENVIRONMENT "${STENCILSCOPE_MPI_ENV};STENCILSCOPE_TEST_TRANSPORT=${transport}")
endforeach()

# The command line under mpirun: bench's table, and bad input leaving every rank.
string(REPLACE ";" " " _flags "${STENCILSCOPE_MPIEXEC_FLAGS}")
stencilscope_test(test_cli_mpi SOURCES test_cli_mpi.cpp LIBS sim LABEL "host;mpi" RESOURCE_LOCK mpi)
target_compile_definitions(test_cli_mpi PRIVATE STENCILSCOPE_EXE="$<TARGET_FILE:stencilscope>"
                           STENCILSCOPE_MPIEXEC="${MPIEXEC_EXECUTABLE} ${_flags}"
                           STENCILSCOPE_MPI_ENV="OMP_NUM_THREADS=1 OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_plm_rsh_agent=false")
add_dependencies(test_cli_mpi stencilscope)

# The window's run on several ranks, driven from rank 0 (sim/dist/distributed_simulation.hpp):
# painting, views, order changes and states against the one-rank simulation, bitwise
# (rank 0 runs the tests, the others serve its commands).
add_executable(test_distributed_simulation mpi/test_distributed_simulation.cpp)
target_link_libraries(test_distributed_simulation PRIVATE sim_dist GTest::gtest fmt::fmt)
target_compile_options(test_distributed_simulation PRIVATE -Wall -Wextra)
foreach(n 2 3)
  add_test(NAME mpi_distributed_simulation_np${n}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${STENCILSCOPE_MPIEXEC_FLAGS}
                   $<TARGET_FILE:test_distributed_simulation>)
  set_tests_properties(mpi_distributed_simulation_np${n} PROPERTIES LABELS "host;mpi" TIMEOUT 120 RESOURCE_LOCK mpi
                       PROCESSORS ${n} ENVIRONMENT "${STENCILSCOPE_MPI_ENV}")
endforeach()

# The same run on GPU boxes (--device gpu under mpirun: each rank its box on its own GPU,
# DeviceHaloExchange), against the one-GPU Simulation, bit for bit (label gpu: skipped, and
# said so, without a CUDA device; np 2 wants a GPU per rank: nvidia-h100-x2). The default
# transport (peer on one node whose GPUs reach each other), staged and nccl. The refusals (a GPU
# run without a device: one line on every rank, the ranks serving on) run on every machine,
# in an entry of their own, so that a skipped GPU case cannot hide a failing refusal.
add_executable(test_gpu_simulation_mpi mpi/test_gpu_simulation_mpi.cpp)
target_link_libraries(test_gpu_simulation_mpi PRIVATE sim_dist GTest::gtest fmt::fmt)
target_compile_options(test_gpu_simulation_mpi PRIVATE -Wall -Wextra)
set(_gpu_refusals "GpuSimulation.WithoutADevice*:GpuSimulation.Refusals*")
add_test(NAME mpi_gpu_simulation_refusals_np2
         COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${STENCILSCOPE_MPIEXEC_FLAGS}
                 $<TARGET_FILE:test_gpu_simulation_mpi> --gtest_filter=${_gpu_refusals})
set_tests_properties(mpi_gpu_simulation_refusals_np2 PROPERTIES LABELS "host;mpi" TIMEOUT 120 RESOURCE_LOCK mpi
                     PROCESSORS 2 ENVIRONMENT "${STENCILSCOPE_MPI_ENV}")
foreach(run 2 2_staged 2_nccl)
  string(REGEX REPLACE "_.*" "" n ${run})
  set(transport "")
  if(run MATCHES "_")
    string(REGEX REPLACE ".*_" "" transport ${run})
  endif()
  add_test(NAME mpi_gpu_simulation_np${run}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${STENCILSCOPE_MPIEXEC_FLAGS}
                   $<TARGET_FILE:test_gpu_simulation_mpi> --gtest_filter=-${_gpu_refusals})
  set_tests_properties(mpi_gpu_simulation_np${run} PROPERTIES LABELS "gpu;mpi" TIMEOUT 300 RESOURCE_LOCK mpi
                       PROCESSORS ${n} SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]"
                       ENVIRONMENT "${STENCILSCOPE_MPI_ENV};STENCILSCOPE_TEST_TRANSPORT=${transport}")
endforeach()

# `mpirun -np 2, 3 stencilscope record --headless` (tests/gui/test_record_mpi.cpp): frames
# equal to one rank's, refusals ending every rank. Needs the app's GUI library (EGL).
if(TARGET stencilscope_gui)
  # Labelled gui (they need EGL) and mpi.
  stencilscope_test(test_record_mpi SOURCES gui/test_record_mpi.cpp LIBS render sim LABEL gui mpi RESOURCE_LOCK mpi)
  target_compile_definitions(test_record_mpi PRIVATE STENCILSCOPE_EXE="$<TARGET_FILE:stencilscope>"
                             STENCILSCOPE_MPIEXEC="${MPIEXEC_EXECUTABLE} ${_flags}"
                             STENCILSCOPE_MPI_ENV="OMP_NUM_THREADS=1 OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_plm_rsh_agent=false")
  add_dependencies(test_record_mpi stencilscope)
endif()

# The app's LiveSimulation made with the distributed factory, edited as the panels do, against
# a one-rank one (tests/gui/test_live_simulation_mpi.cpp; a headless EGL context on rank 0).
if(TARGET stencilscope_gui)
  add_executable(test_live_simulation_mpi gui/test_live_simulation_mpi.cpp)
  target_link_libraries(test_live_simulation_mpi PRIVATE stencilscope_gui render sim_dist GTest::gtest fmt::fmt)
  target_compile_options(test_live_simulation_mpi PRIVATE -Wall -Wextra)
  foreach(n 2 3)
    add_test(NAME mpi_live_simulation_np${n}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${STENCILSCOPE_MPIEXEC_FLAGS}
                     $<TARGET_FILE:test_live_simulation_mpi>)
    set_tests_properties(mpi_live_simulation_np${n} PROPERTIES LABELS "gui;mpi" TIMEOUT 120 RESOURCE_LOCK mpi
                         PROCESSORS ${n} ENVIRONMENT "${STENCILSCOPE_MPI_ENV}")
  endforeach()
endif()
