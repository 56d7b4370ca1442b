# Embeds data files (shaders, colormap tables) into a C++ source at build time.
#
#   stencilscope_embed_files(<out.cpp> BASE <dir> FILES <relative paths...>)
#
# The generated source defines ss::render::detail::kEmbeddedFiles, an array of
# {name, bytes} with names relative to BASE ("shaders/field.frag"); it is rebuilt
# when any of the files changes. render/src/resources.cpp looks names up in it.
set(STENCILSCOPE_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/EmbedFilesScript.cmake)

function(stencilscope_embed_files out)
  cmake_parse_arguments(E "" "BASE" "FILES" ${ARGN})
  set(deps)
  foreach(f IN LISTS E_FILES)
    list(APPEND deps ${E_BASE}/${f})
  endforeach()
  list(JOIN E_FILES ";" files_arg)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DBASE=${E_BASE} "-DFILES=${files_arg}" -P ${STENCILSCOPE_EMBED_SCRIPT}
    DEPENDS ${deps} ${STENCILSCOPE_EMBED_SCRIPT}
    COMMENT "Embedding ${E_FILES}"
    VERBATIM)
endfunction()
