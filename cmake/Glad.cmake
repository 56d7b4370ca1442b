# glad 2 loaders generated at build time with Debian's python3-glad: OpenGL 4.5 core
# (a 3.3 context loads too; the loader reports what it got) and EGL 1.5 with the
# extensions the headless renderer needs, plus the GL extensions of the external-memory
# upload (render/interop.hpp: GL_EXT_memory_object(_fd), GL_EXT_semaphore(_fd); a context
# without them still loads, GLAD_GL_EXT_* say which it has). --reproducible: no network,
# the bundled specs.
#
#   stencilscope_add_glad(<target>)   a static library with <glad/gl.h> and <glad/egl.h>
find_program(STENCILSCOPE_GLAD_EXECUTABLE glad DOC "glad 2 generator (Debian: python3-glad)")
# The script can exist and still not run (on the GPU machine its entry point needs
# pkg_resources): keep it only if it answers, else fall back to `python3 -m glad`.
if(STENCILSCOPE_GLAD_EXECUTABLE)
  execute_process(COMMAND ${STENCILSCOPE_GLAD_EXECUTABLE} --help RESULT_VARIABLE _glad_rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT _glad_rc EQUAL 0)
    message(STATUS "glad: ${STENCILSCOPE_GLAD_EXECUTABLE} does not run; trying python3 -m glad")
    set(STENCILSCOPE_GLAD_EXECUTABLE "" CACHE FILEPATH "" FORCE)
  endif()
endif()

function(stencilscope_add_glad target)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/glad)
  if(STENCILSCOPE_GLAD_EXECUTABLE)
    set(generator ${STENCILSCOPE_GLAD_EXECUTABLE})
  else()
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    execute_process(COMMAND ${Python3_EXECUTABLE} -m glad --help RESULT_VARIABLE no_glad OUTPUT_QUIET ERROR_QUIET)
    if(no_glad)
      message(FATAL_ERROR "glad 2 not found: install Debian's python3-glad (or put `glad` on PATH)")
    endif()
    set(generator ${Python3_EXECUTABLE} -m glad)
  endif()
  set(egl_extensions
    EGL_EXT_device_base EGL_EXT_device_enumeration EGL_EXT_device_query EGL_EXT_platform_base
    EGL_EXT_platform_device EGL_MESA_platform_surfaceless EGL_KHR_surfaceless_context
    EGL_KHR_create_context EGL_NV_device_cuda)
  set(gl_extensions GL_EXT_memory_object GL_EXT_memory_object_fd GL_EXT_semaphore GL_EXT_semaphore_fd)
  list(JOIN egl_extensions "," extensions)
  list(JOIN gl_extensions "," gl_list)
  string(APPEND extensions ",${gl_list}")
  add_custom_command(
    OUTPUT ${out}/src/gl.c ${out}/src/egl.c ${out}/include/glad/gl.h ${out}/include/glad/egl.h
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${out}
    COMMAND ${generator} --api gl:core=4.5,egl=1.5 --extensions ${extensions} --out-path ${out}
            --reproducible --quiet c --loader
    COMMENT "Generating glad (GL 4.5 core with the external-object extensions, EGL 1.5)"
    VERBATIM)
  add_library(${target} STATIC ${out}/src/gl.c ${out}/src/egl.c)
  target_include_directories(${target} SYSTEM PUBLIC ${out}/include)
  target_link_libraries(${target} PUBLIC ${CMAKE_DL_LIBS})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
