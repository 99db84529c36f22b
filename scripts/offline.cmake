# WAMR (inside the QuickJS engine) fetches simde over the network; use Debian's libsimde-dev.
set(FETCHCONTENT_SOURCE_DIR_SIMDE "/usr/include" CACHE PATH "simde from the system")
