# The core compiled to WebAssembly for the static page (docs/web.md). Included by
# CMakeLists.txt when configured with Emscripten (emcmake): no CLI, no tests, no
# Python. RE2 is Debian's source built with the same toolchain (build.sh web);
# nlohmann_json is header-only and taken from Debian's headers. Gzip is opened by
# the browser (DecompressionStream), so zlib and zstd are not linked.
find_package(re2 CONFIG REQUIRED)  # -Dre2_DIR=<RE2 built for wasm>/lib/cmake/re2
set(OOMLENS_WEB_HEADERS ${PROJECT_BINARY_DIR}/web-include)
file(MAKE_DIRECTORY ${OOMLENS_WEB_HEADERS})
file(CREATE_LINK /usr/include/nlohmann ${OOMLENS_WEB_HEADERS}/nlohmann SYMBOLIC)

include(${PROJECT_SOURCE_DIR}/src/embed_rules.cmake)
set(OOMLENS_EMBEDDED_RULES_CC ${PROJECT_BINARY_DIR}/embedded_rules.cc)
oomlens_embed_rules(${OOMLENS_EMBEDDED_RULES_CC} "Embedding rules/ into the WebAssembly module")

file(GLOB OOMLENS_CORE_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/core/*/*.cc)
list(FILTER OOMLENS_CORE_SOURCES EXCLUDE REGEX ".*/input/decompress\\.cc$")
file(GLOB OOMLENS_WEB_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/web/*.cc)
add_executable(oomlens_web ${OOMLENS_CORE_SOURCES} ${OOMLENS_WEB_SOURCES} ${OOMLENS_EMBEDDED_RULES_CC})
target_include_directories(oomlens_web PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
target_include_directories(oomlens_web SYSTEM PRIVATE ${OOMLENS_WEB_HEADERS})
target_compile_features(oomlens_web PRIVATE cxx_std_17)
target_compile_definitions(oomlens_web PRIVATE OOMLENS_VERSION="${PROJECT_VERSION}")
target_compile_options(oomlens_web PRIVATE -Wall -Wextra -fexceptions)
target_link_libraries(oomlens_web PRIVATE re2::re2)
target_link_options(oomlens_web PRIVATE
  -fexceptions -sMODULARIZE=1 -sEXPORT_NAME=createOomlens -sENVIRONMENT=web
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sFILESYSTEM=0
  "-sEXPORTED_FUNCTIONS=['_malloc','_free','_oomlens_begin','_oomlens_add','_oomlens_finish','_oomlens_version']"
  "-sEXPORTED_RUNTIME_METHODS=['HEAPU8','UTF8ToString','stringToUTF8','lengthBytesUTF8']")
set_target_properties(oomlens_web PROPERTIES OUTPUT_NAME oomlens RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/wasm)

# The site: the page's files, and the module's bytes as base64 in a script
# (oomlens-wasm.js). A page opened from disk may not fetch a .wasm, and the page
# fetches nothing at all: app.js hands the bytes to the module (wasmBinary).
set(OOMLENS_SITE ${PROJECT_BINARY_DIR}/site)
file(GLOB OOMLENS_PAGE_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/web/page/*)
# Rebuilt when a page file or the module changes (a POST_BUILD step would miss the first).
set(OOMLENS_SITE_FILES ${OOMLENS_SITE}/oomlens.js ${OOMLENS_SITE}/oomlens-wasm.js)
foreach(page_file ${OOMLENS_PAGE_FILES})
  get_filename_component(page_name ${page_file} NAME)
  list(APPEND OOMLENS_SITE_FILES ${OOMLENS_SITE}/${page_name})
endforeach()
add_custom_command(OUTPUT ${OOMLENS_SITE_FILES}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${OOMLENS_SITE}
  COMMAND ${CMAKE_COMMAND} -E copy ${OOMLENS_PAGE_FILES} ${OOMLENS_SITE}
  COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_BINARY_DIR}/wasm/oomlens.js ${OOMLENS_SITE}/oomlens.js
  COMMAND sh ${PROJECT_SOURCE_DIR}/src/web/embed_wasm.sh wasm/oomlens.wasm site/oomlens-wasm.js
  DEPENDS oomlens_web ${OOMLENS_PAGE_FILES} ${PROJECT_SOURCE_DIR}/src/web/embed_wasm.sh
  WORKING_DIRECTORY ${PROJECT_BINARY_DIR}
  VERBATIM)
add_custom_target(oomlens_site ALL DEPENDS ${OOMLENS_SITE_FILES})
